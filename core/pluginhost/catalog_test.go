package pluginhost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/sdk/errs"
)

const sum = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestParseCatalog(t *testing.T) {
	specs, err := pluginhost.ParseCatalog("")
	require.NoError(t, err)
	require.Empty(t, specs)

	specs, err = pluginhost.ParseCatalog(`[
		{"name": "slack", "kind": "notifier", "binary": "notifier-slack", "env": {"PACT_ADMIN_UI_URL": "https://ui.test"}},
		{"name": "oidc", "kind": "authissuer", "sha256": "` + strings.ToUpper(sum) + `"}
	]`)
	require.NoError(t, err)
	require.Equal(t, []pluginhost.Spec{
		{Name: "slack", Kind: pluginhost.KindNotifier, Binary: "notifier-slack", Env: map[string]string{"PACT_ADMIN_UI_URL": "https://ui.test"}},
		{Name: "oidc", Kind: pluginhost.KindAuthIssuer, Binary: "oidc", SHA256: sum},
	}, specs)

	file := filepath.Join(t.TempDir(), "plugins.json")
	require.NoError(t, os.WriteFile(file, []byte(`[{"name": "tenuo", "kind": "credential", "sha256": "`+sum+`"}]`), 0o600))
	specs, err = pluginhost.ParseCatalog(file)
	require.NoError(t, err)
	require.Equal(t, "tenuo", specs[0].Name)
}

func TestParseCatalogRefuses(t *testing.T) {
	for _, tt := range []struct{ name, value, says string }{
		{"MissingFile", "/nonexistent/plugins.json", "cannot read the plugin catalog"},
		{"NotJSON", "[nope", "not a JSON list"},
		{"UnknownField", `[{"name": "a", "kind": "notifier", "sha": "x"}]`, "unknown field"},
		{"BadName", `[{"name": "Slack!", "kind": "notifier"}]`, "name must match"},
		{"BadKind", `[{"name": "a", "kind": "mailer"}]`, `kind "mailer" is not notifier, credential or authissuer`},
		{"CredentialUnpinned", `[{"name": "a", "kind": "credential"}]`, "credential plugins must be pinned"},
		{"IssuerUnpinned", `[{"name": "a", "kind": "authissuer"}]`, "authissuer plugins must be pinned"},
		{"BadSum", `[{"name": "a", "kind": "notifier", "sha256": "abc"}]`, "64 hex digits"},
		{"BadEnv", `[{"name": "a", "kind": "notifier", "env": {"A-B": "x"}}]`, "not a variable name"},
		{"Duplicate", `[{"name": "a", "kind": "notifier"}, {"name": "a", "kind": "notifier"}]`, "appears twice"},
		{"Trailing", `[] []`, "unexpected data"},
		{"Numbered", `[{"name": "a", "kind": "notifier"}, {"name": "B!", "kind": "notifier"}]`, `plugin 2 ("B!")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pluginhost.ParseCatalog(tt.value)
			require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
			require.ErrorContains(t, err, "PACT_PLUGINS")
			require.ErrorContains(t, err, tt.says)
		})
	}
}
