package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// A template a server cannot start from (damaged on disk) is dropped when
// the throwaway fails, and the next throwaway writes it again and starts.
// TMPDIR points both at a directory of this test's, so no other test
// binary's template is touched.
func TestADamagedTemplateIsWrittenAgain(t *testing.T) {
	root, err := os.MkdirTemp("", "pact-template-root-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(root, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	t.Setenv("TMPDIR", root)
	ctx := context.Background()
	a, err := StartThrowaway(ctx)
	require.NoError(t, err)
	tmpl, err := a.templateDir()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tmpl, root), "the template is under this test's TMPDIR")
	a.Destroy()
	require.NoError(t, os.Remove(filepath.Join(tmpl, "data", "global", "pg_control")))

	_, err = StartThrowaway(ctx)
	require.ErrorContains(t, err, "exited before it accepted connections", "no server starts without pg_control, and it says so at once")
	_, err = os.Stat(tmpl)
	require.ErrorIs(t, err, os.ErrNotExist, "the damaged template is dropped")

	b, err := StartThrowaway(ctx)
	require.NoError(t, err)
	defer b.Destroy()
	_, err = os.Stat(filepath.Join(tmpl, "data", "global", "pg_control"))
	require.NoError(t, err, "written again")
}

// A template directory without a finished initdb in it (what a drop cut
// short leaves, or an empty directory) is no template another wrote
// first: the next throwaway replaces it instead of failing for good.
func TestTheRestOfATemplateIsReplaced(t *testing.T) {
	root, err := os.MkdirTemp("", "pact-template-root-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(root, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	t.Setenv("TMPDIR", root)
	a, err := StartThrowaway(context.Background())
	require.NoError(t, err)
	tmpl, err := a.templateDir()
	require.NoError(t, err)
	a.Destroy()
	for _, rest := range []string{"empty", "partial"} {
		require.NoError(t, os.RemoveAll(tmpl))
		require.NoError(t, os.MkdirAll(filepath.Join(tmpl, "data", "base"), 0o755))
		if rest == "empty" {
			require.NoError(t, os.RemoveAll(filepath.Join(tmpl, "data")))
		}
		b, err := StartThrowaway(context.Background())
		require.NoError(t, err, "%s: a throwaway starts over the rest of a template", rest)
		b.Destroy()
		_, err = os.Stat(filepath.Join(tmpl, "data", "PG_VERSION"))
		require.NoError(t, err, "%s: the template is written whole", rest)
	}
}
