package db_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/migrations"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func open(t *testing.T, dsn string) *db.DB {
	d, err := db.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	return d
}

// Several board processes starting at once: the advisory lock lets exactly
// one apply each file, and the others see it applied.
func TestConcurrentMigratorsApplyEachFileOnce(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewEmptyDSN(t)
	files, err := migrations.Files.ReadDir(".")
	require.NoError(t, err)
	const procs = 4
	applied := make([][]string, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := db.Open(ctx, dsn)
			if err != nil {
				t.Error(err)
				return
			}
			defer d.Close()
			applied[i], err = d.Migrate(ctx)
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, a := range applied {
		total += len(a)
	}
	require.Equal(t, len(files), total, "every .sql file applied exactly once across all migrators")
	d := open(t, dsn)
	var n int
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM schema_migrations`).Scan(ctx, &n))
	require.Equal(t, len(files), n)
	again, err := d.Migrate(ctx)
	require.NoError(t, err)
	require.Empty(t, again, "migrating twice applies nothing")
}

// A failing migration leaves nothing of itself behind and is not recorded,
// and the ones before it stay applied.
func TestAFailingMigrationIsRolledBack(t *testing.T) {
	ctx := context.Background()
	d := open(t, pgtest.NewEmptyDSN(t))
	files := fstest.MapFS{
		"001_ok.sql":     {Data: []byte(`CREATE TABLE a (x int);`)},
		"002_broken.sql": {Data: []byte(`CREATE TABLE b (x int); SELECT no_such_function();`)},
	}
	ran, err := d.MigrateFS(ctx, files)
	require.Error(t, err)
	require.Equal(t, []string{"001_ok"}, ran)
	var tables []string
	require.NoError(t, d.NewRaw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`).Scan(ctx, &tables))
	require.Equal(t, []string{"a", "schema_migrations"}, tables)
}

// Migration files are numbered, so name order is the order they apply in.
func TestMigrationNamesAreNumberedAndOrdered(t *testing.T) {
	files, err := migrations.Files.ReadDir(".")
	require.NoError(t, err)
	prev := ""
	for _, f := range files {
		name := f.Name()
		require.Regexp(t, `^[0-9]{3}_[a-z0-9_]+\.sql$`, name)
		require.Greater(t, name, prev)
		prev = name
	}
}

// A shipped migration is never edited: migrations/SHIPPED.sha256 records each
// file's SHA-256 when it ships, and a change to a recorded file fails here.
// A new file must be added to the record (sha256sum NNN_name.sql >> …).
func TestShippedMigrationsAreNeverEdited(t *testing.T) {
	raw, err := os.ReadFile("../../migrations/SHIPPED.sha256")
	require.NoError(t, err)
	recorded := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, "malformed line %q", line)
		recorded[name] = sum
	}
	files, err := migrations.Files.ReadDir(".")
	require.NoError(t, err)
	for _, f := range files {
		body, err := migrations.Files.ReadFile(f.Name())
		require.NoError(t, err)
		want, ok := recorded[f.Name()]
		require.True(t, ok, "%s is not recorded in migrations/SHIPPED.sha256", f.Name())
		got := sha256.Sum256(body)
		require.Equal(t, want, hex.EncodeToString(got[:]), "%s was edited after it shipped; add a new migration instead", f.Name())
		delete(recorded, f.Name())
	}
	require.Empty(t, recorded, "recorded migrations are missing from migrations/")
}
