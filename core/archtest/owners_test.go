package archtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// Table ownership (docs/architecture.md, "Table ownership"): every table's
// comment names the one package that owns it, only the owner writes it, and
// another package reads it only where allowedReads says why.

func TestMain(m *testing.M) { pgtest.Main(m) }

// ownerComment is the form of a table's comment: "owner: core/identity",
// optionally followed by more text.
var ownerComment = regexp.MustCompile(`^owner: ((?:core|modules)/[a-z0-9_/]+)(?:\s|$)`)

// readOwners returns every table of the public schema and its owner as its
// comment declares it ("" when it declares none).
func readOwners(t *testing.T, d *db.DB) map[string]string {
	t.Helper()
	var rows []struct {
		Table   string `bun:"relname"`
		Comment string `bun:"comment"`
	}
	require.NoError(t, d.NewRaw(`SELECT c.relname, coalesce(obj_description(c.oid, 'pg_class'), '') AS comment
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`).Scan(context.Background(), &rows))
	out := map[string]string{}
	for _, r := range rows {
		out[r.Table] = ""
		if m := ownerComment.FindStringSubmatch(r.Comment); m != nil {
			out[r.Table] = m[1]
		}
	}
	return out
}

// catalogProblems lists the tables with no owner, or with an owner that is
// no package directory under root.
func catalogProblems(owners map[string]string, root string) []string {
	var out []string
	for _, table := range sortedKeys(owners) {
		owner := owners[table]
		if owner == "" {
			out = append(out, fmt.Sprintf("table %s declares no owner: add COMMENT ON TABLE %s IS 'owner: <package>' "+
				"in a migration (the one that creates it, for a new table)", table, table))
			continue
		}
		if st, err := os.Stat(filepath.Join(root, owner)); err != nil || !st.IsDir() {
			out = append(out, fmt.Sprintf("table %s is owned by %s, which is no package directory", table, owner))
		}
	}
	return out
}

// allowance excuses a non-owner's access to a table, with the reason.
type allowance struct {
	pkg, table string
	kind       access
	why        string
}

// ownership is what the checker found: violations fail, and so do unused,
// the allowances that excuse nothing and must be removed.
type ownership struct {
	violations, unused []string
}

// checkOwnership applies the rule to refs; allowed excuses reads, and the
// writes of a test harness's home (harnessHomes) only.
func checkOwnership(owners map[string]string, refs []tableRef, allowed []allowance) ownership {
	var out ownership
	used := map[allowance]bool{}
	find := func(list []allowance, r tableRef) (allowance, bool) {
		for _, a := range list {
			if a.pkg == r.pkg && a.table == r.table && a.kind == r.kind {
				return a, true
			}
		}
		return allowance{}, false
	}
	for _, r := range refs {
		if r.table == "?" {
			out.violations = append(out.violations, fmt.Sprintf("%s %s a bun Model with no table name at %s: "+
				"name the table (Table, ModelTableExpr) or write the SQL, so its owner can be checked", r.pkg, r.kind, r.at))
			continue
		}
		owner := owners[r.table]
		if r.pkg == owner || under(r.pkg, owner) {
			continue
		}
		msg := fmt.Sprintf("%s %s %s (owner: %s) at %s", r.pkg, r.kind, r.table, owner, r.at)
		if a, ok := find(allowed, r); ok && (r.kind == reads || slices.Contains(harnessHomes, r.pkg)) {
			used[a] = true
			continue
		}
		if r.kind == writes {
			msg += ": only the owner writes its table; call the owner's service or a kernel seam"
		} else {
			msg += ": ask the owner through a kernel seam, or list the read in allowedReads with its reason"
		}
		out.violations = append(out.violations, msg)
	}
	for _, a := range allowed {
		switch {
		case a.why == "":
			out.unused = append(out.unused, fmt.Sprintf("allowance %s %s %s has no reason", a.pkg, a.kind, a.table))
		case !used[a]:
			out.unused = append(out.unused, fmt.Sprintf("allowance %s %s %s excuses nothing: remove it", a.pkg, a.kind, a.table))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

// Every table of the migrated schema names its owner, and the owner is a
// package of this repository.
func TestEveryTableHasAnOwner(t *testing.T) {
	owners := readOwners(t, pgtest.New(t))
	require.Contains(t, owners, "tasks", "the catalog was read")
	require.Contains(t, owners, "schema_migrations", "core/db's own table is in the population")
	for _, p := range catalogProblems(owners, repoRoot(t)) {
		t.Error(p)
	}
}

// The SQL of every non-test Go file under core/, modules/ and cmd/ writes
// only the tables its package owns, and reads another's only where
// allowedReads says why.
func TestTablesAreWrittenOnlyByTheirOwner(t *testing.T) {
	root := repoRoot(t)
	owners := readOwners(t, pgtest.New(t))
	population := map[string]bool{}
	for table := range owners {
		population[table] = true
	}
	refs := scanCode(t, root, population, "core", "modules", "cmd")
	require.NotEmpty(t, refs, "the code was scanned")
	got := checkOwnership(owners, refs, append(allowedReads(), harnessWrites()...))
	for _, v := range got.violations {
		t.Error(v)
	}
	for _, u := range got.unused {
		t.Error(u)
	}
}
