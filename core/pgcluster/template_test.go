package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// Throwaway clusters start from copies of one initdb template: what one
// cluster writes reaches neither the template nor the next cluster, and
// the template is the same directory for both.
func TestThrowawaysStartFromCopiesOfOneTemplate(t *testing.T) {
	ctx := context.Background()
	a, err := StartThrowaway(ctx)
	require.NoError(t, err)
	defer a.Destroy()
	tmpl, err := a.templateDir()
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(tmpl, "data", "global", "pg_control"))
	require.NoError(t, err, "the first throwaway wrote the template")

	conn, err := pgx.Connect(ctx, a.DSN("postgres"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE DATABASE only_in_a")
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))

	b, err := StartThrowaway(ctx)
	require.NoError(t, err)
	defer b.Destroy()
	again, err := b.templateDir()
	require.NoError(t, err)
	require.Equal(t, tmpl, again)
	conn, err = pgx.Connect(ctx, b.DSN("postgres"))
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = 'only_in_a'").Scan(&n))
	require.Zero(t, n, "a database of one throwaway is not in the next")
	after, err := os.ReadFile(filepath.Join(tmpl, "data", "global", "pg_control"))
	require.NoError(t, err)
	require.Equal(t, before, after, "the template is never started")
	_, err = os.Stat(filepath.Join(tmpl, "data", "postmaster.pid"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// Two binaries writing the template at once: the second rename loses and
// keeps the first's, leaving no staging directory behind.
func TestASecondTemplateWriterKeepsTheFirstOnes(t *testing.T) {
	dir, err := os.MkdirTemp("", "pact-template-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	c, err := New(filepath.Join(dir, "unused"))
	require.NoError(t, err)
	tmpl := filepath.Join(dir, "template")
	require.NoError(t, c.writeTemplate(tmpl))
	first, err := os.Stat(filepath.Join(tmpl, "data", "PG_VERSION"))
	require.NoError(t, err)
	require.NoError(t, c.writeTemplate(tmpl))
	kept, err := os.Stat(filepath.Join(tmpl, "data", "PG_VERSION"))
	require.NoError(t, err)
	require.Equal(t, first.ModTime(), kept.ModTime())
	left, err := filepath.Glob(filepath.Join(dir, "template.staging-*"))
	require.NoError(t, err)
	require.Empty(t, left)
}
