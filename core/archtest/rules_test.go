package archtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func p(path string, imports ...string) pkg {
	return pkg{ImportPath: repo + "/" + path, Imports: imports}
}

func ours(rel string) string { return repo + "/" + rel }

// The checker itself, on synthetic package lists: each rule catches its
// violation, and the allowed directions pass.
func TestCheckerCatchesViolations(t *testing.T) {
	for _, tt := range []struct {
		name string
		pkg  pkg
		rule string // "" means allowed
	}{
		{"ModuleImportsModule", p("modules/tasks", ours("modules/notes")), "modules are independent"},
		{"ModuleImportsItsSubpackage", p("modules/tasks", ours("modules/tasks/store")), ""},
		{"ModuleImportsCore", p("modules/tasks", ours("core/kernel"), ours("sdk/errs")), ""},
		{"CoreImportsModule", p("core/kernel", ours("modules/tasks")), "core stands below modules"},
		{"CoreImportsPlugin", p("core/pluginhost", ours("plugins/slack")), "core stands below modules"},
		{"CoreImportsSDK", p("core/kernel", ours("sdk/errs"), "net/http"), ""},
		{"SDKImportsCore", p("sdk/errs", ours("core/db")), "sdk is self-contained"},
		{"SDKImportsRoot", p("sdk/notify", repo), "sdk is self-contained"},
		{"SDKImportsSDK", p("sdk/notify", ours("sdk/errs"), "google.golang.org/grpc"), ""},
		{"PluginImportsCore", p("plugins/slack", ours("core/ledger")), "plugins see only the sdk"},
		{"PluginImportsModule", p("plugins/slack", ours("modules/notify")), "plugins see only the sdk"},
		{"PluginImportsSDK", p("plugins/slack", ours("sdk/notify")), ""},
		{"ImportsCmd", p("modules/tasks", ours("cmd/pact-board")), "commands are leaves"},
		{"CmdImportsOtherCmd", p("cmd/pact-admin", ours("cmd/pact-board")), "commands are leaves"},
		{"CmdImportsEverything", p("cmd/pact-board", ours("modules/tasks"), ours("core/kernel")), ""},
		{"MigrationsImportOurs", p("migrations", ours("core/db")), "migrations are a leaf data package"},
		{"ModuleImportsMigrations", p("modules/tasks", ours("migrations")), "migrations are a leaf data package"},
		{"DBImportsMigrations", p("core/db", ours("migrations")), ""},
		{"ThirdParty", p("modules/tasks", "github.com/uptrace/bun"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := check([]pkg{tt.pkg})
			if tt.rule == "" {
				require.Empty(t, got)
				return
			}
			require.Len(t, got, 1, "%v", got)
			require.Equal(t, tt.rule, got[0].rule)
			require.Contains(t, got[0].String(), tt.pkg.ImportPath+" imports ")
			require.NotEmpty(t, got[0].why)
		})
	}
}

func TestCheckerReadsTestImports(t *testing.T) {
	got := check([]pkg{{
		ImportPath:   ours("core/ledger"),
		TestImports:  []string{ours("modules/tasks")},
		XTestImports: []string{ours("modules/tasks")},
	}})
	require.Len(t, got, 1, "an import seen twice is reported once")
}

func TestCheckerIgnoresOtherRepositories(t *testing.T) {
	require.Empty(t, check([]pkg{{ImportPath: "example.com/x/modules/a", Imports: []string{"example.com/x/modules/b"}}}))
}

func TestHasInit(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	require.NoError(t, os.WriteFile(with, []byte("package a\n\nfunc init() {}\n"), 0o644))
	require.NoError(t, os.WriteFile(without, []byte("package a\n\ntype T struct{}\n\nfunc (T) init() {}\n"), 0o644))
	require.True(t, hasInit(t, with))
	require.False(t, hasInit(t, without), "a method named init is not a package initialiser")
}
