package pluginhost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/sdk/errs"
)

func loadConfig(t *testing.T, vars map[string]string) *boot.Config {
	t.Helper()
	cfg, err := boot.Load(func(k string) string { return vars[k] })
	require.NoError(t, err)
	return cfg
}

// manifestOf is what make build embeds: pact-admin plugin-pin's entry
// (PinEntry) for each binary, one after another.
func manifestOf(t *testing.T, dir string, binaries ...string) []pluginhost.Spec {
	t.Helper()
	var raw bytes.Buffer
	for _, b := range binaries {
		s, err := pluginhost.PinEntry(filepath.Join(dir, b), dir, "", "")
		require.NoError(t, err)
		require.NoError(t, json.NewEncoder(&raw).Encode(s))
	}
	m, err := pluginhost.ParseManifest(raw.Bytes())
	require.NoError(t, err)
	return m
}

// bundledDir is a PACT_PLUGIN_DIR holding the example notifier under the
// Slack plugin's file name: a real plugin, cheap to build, that
// PACT_SLACK_WEBHOOK_URL turns on.
func bundledDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(binDir, helloBin))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notifier-slack"), b, 0o755))
	return dir
}

// One variable runs the bundled plugin, pinned to the manifest's sum, with
// no PACT_PLUGINS at all.
func TestBundledPluginRunsWithOnlyItsVariable(t *testing.T) {
	dir := bundledDir(t)
	cfg := loadConfig(t, map[string]string{"PACT_PLUGIN_DIR": dir, "PACT_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/x"})
	manifest := manifestOf(t, dir, "notifier-slack")

	specs, warnings, err := pluginhost.Catalog(cfg, manifest)
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Len(t, specs, 1)
	require.Equal(t, "slack", specs[0].Name)
	require.Equal(t, sha256Of(t, filepath.Join(dir, "notifier-slack")), specs[0].SHA256, "bundled plugins are always pinned")

	h, logs := newHost(t, specs, func(o *pluginhost.Options) { o.Dir = dir })
	h.Start()
	n, err := h.Notifier("slack")
	require.NoError(t, err)
	_, err = n.Capabilities(context.Background())
	require.NoError(t, err, logs.String())

	// Unset, the variable runs nothing.
	specs, _, err = pluginhost.Catalog(loadConfig(t, map[string]string{"PACT_PLUGIN_DIR": dir}), manifest)
	require.NoError(t, err)
	require.Empty(t, specs)
}

// A bundled binary that is not the one make build pinned never runs, and
// the error names both sums and the fix.
func TestBundledPluginWithAnotherSumRefused(t *testing.T) {
	dir := bundledDir(t)
	cfg := loadConfig(t, map[string]string{"PACT_PLUGIN_DIR": dir, "PACT_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/x"})
	manifest := manifestOf(t, dir, "notifier-slack")
	pinned := manifest[0].SHA256
	// The binary in the directory changes after the board was built.
	other, err := os.ReadFile(filepath.Join(binDir, testBin))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notifier-slack"), other, 0o755))
	found := sha256Of(t, filepath.Join(dir, "notifier-slack"))

	specs, _, err := pluginhost.Catalog(cfg, manifest)
	require.NoError(t, err)
	h, logs := newHost(t, specs, func(o *pluginhost.Options) { o.Dir = dir })
	h.Start()
	s := status(h, "slack")
	require.False(t, s.Running)
	require.Equal(t, 0, s.Starts, "the process was never started")
	n, err := h.Notifier("slack")
	require.NoError(t, err)
	_, err = n.Capabilities(context.Background())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	for _, want := range []string{found, "built with the pin " + pinned, "make build"} {
		require.ErrorContains(t, err, want)
		require.Contains(t, logs.String(), want)
	}
}

// PACT_PLUGINS still adds plugins and overrides a bundled one by name (or,
// for the issuer, by kind); a variable whose plugin the board has no pin
// for runs nothing and says how to fix it.
func TestBundledCatalogMerge(t *testing.T) {
	const sum = "1111111111111111111111111111111111111111111111111111111111111111"
	manifest, err := pluginhost.ParseManifest([]byte(`{"name": "oidc", "kind": "authissuer", "binary": "auth-oidc", "sha256": "` + sum + `"}
		{"name": "tenuo", "kind": "credential", "binary": "credential-tenuo", "sha256": "` + sum + `"}`))
	require.NoError(t, err)
	vars := map[string]string{"PACT_AUTH_ISSUER": "https://login.example.com", "PACT_EXPORT_FORMAT": "tenuo",
		"PACT_ADMIN_UI_URL": "https://pact.example.com/ui"}

	specs, warnings, err := pluginhost.Catalog(loadConfig(t, vars), manifest)
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Len(t, specs, 2)
	require.Equal(t, pluginhost.Spec{Name: "oidc", Kind: pluginhost.KindAuthIssuer, Binary: "auth-oidc", SHA256: sum,
		Env: map[string]string{"PACT_OIDC_ISSUER": "https://login.example.com"}}.String(), specs[0].String())
	require.Equal(t, "https://login.example.com", specs[0].Env["PACT_OIDC_ISSUER"])
	require.Equal(t, sum, specs[1].SHA256)

	vars["PACT_PLUGINS"] = `[{"name": "tenuo", "kind": "credential", "binary": "/opt/tenuo", "sha256": "` + strings.Repeat("2", 64) + `"},
		{"name": "keycloak", "kind": "authissuer", "binary": "kc", "sha256": "` + strings.Repeat("3", 64) + `"},
		{"name": "hooks", "kind": "notifier", "binary": "notifier-webhook"}]`
	specs, _, err = pluginhost.Catalog(loadConfig(t, vars), manifest)
	require.NoError(t, err)
	var names []string
	for _, s := range specs {
		names = append(names, s.Name+"="+s.Binary)
	}
	require.Equal(t, []string{"tenuo=/opt/tenuo", "keycloak=kc", "hooks=notifier-webhook"}, names)

	// A board built without make build (empty manifest).
	vars = map[string]string{"PACT_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/x"}
	specs, warnings, err = pluginhost.Catalog(loadConfig(t, vars), nil)
	require.NoError(t, err)
	require.Empty(t, specs)
	require.Len(t, warnings, 1)
	for _, want := range []string{"PACT_SLACK_WEBHOOK_URL", "notifier-slack", "make build", "PACT_PLUGINS", "pact-admin plugin-pin"} {
		require.Contains(t, warnings[0], want)
	}
}

func TestParseManifestRefuses(t *testing.T) {
	for _, bad := range []string{
		`{"name": "oidc", "kind": "authissuer", "binary": "auth-oidc"}`,
		`{"name": "slack", "kind": "notifier", "binary": "notifier-slack"}`, // a bundled plugin is always pinned
		`{"name": "slack", "kind": "notifier", "sha256": "zz"}`,
		`[{"name": "slack"}]`,
		`{"name": "slack", "kind": "notifier", "extra": 1}`,
	} {
		_, err := pluginhost.ParseManifest([]byte(bad))
		require.Error(t, err, bad)
	}
	m, err := pluginhost.ParseManifest(nil)
	require.NoError(t, err)
	require.Empty(t, m)
}

func TestPinEntry(t *testing.T) {
	dir := bundledDir(t)
	path := filepath.Join(dir, "notifier-slack")
	s, err := pluginhost.PinEntry(path, dir, "", "")
	require.NoError(t, err)
	require.Equal(t, pluginhost.Spec{Name: "slack", Kind: pluginhost.KindNotifier, Binary: "notifier-slack",
		SHA256: sha256Of(t, path)}.String(), s.String())
	require.Equal(t, sha256Of(t, path), s.SHA256)

	s, err = pluginhost.PinEntry(path, t.TempDir(), pluginhost.KindNotifier, "chat")
	require.NoError(t, err)
	require.Equal(t, "chat", s.Name)
	require.Equal(t, path, s.Binary, "outside PACT_PLUGIN_DIR the entry names the absolute path")

	_, err = pluginhost.PinEntry(filepath.Join(binDir, testBin), binDir, "", "")
	require.ErrorContains(t, err, "--kind")
	_, err = pluginhost.PinEntry(filepath.Join(dir, "nope"), dir, "", "")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}

// The Slack offer passes PACT_ADMIN_UI_URL on only when it is set, the
// email offer PACT_SMTP_URL, and a
// PACT_PLUGINS holding no authissuer leaves PACT_AUTH_ISSUER's offer in.
func TestBundledOffersTakeTheirVariables(t *testing.T) {
	const sum = "1111111111111111111111111111111111111111111111111111111111111111"
	manifest, err := pluginhost.ParseManifest([]byte(`{"name": "oidc", "kind": "authissuer", "binary": "auth-oidc", "sha256": "` + sum + `"}
		{"name": "slack", "kind": "notifier", "binary": "notifier-slack", "sha256": "` + sum + `"}`))
	require.NoError(t, err)
	vars := map[string]string{"PACT_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/x", "PACT_ADMIN_UI_URL": "https://pact.example.com/ui"}
	specs, _, err := pluginhost.Catalog(loadConfig(t, vars), manifest)
	require.NoError(t, err)
	require.Len(t, specs, 1)
	require.Equal(t, "https://pact.example.com/ui", specs[0].Env["PACT_ADMIN_UI_URL"])
	delete(vars, "PACT_ADMIN_UI_URL")
	specs, _, err = pluginhost.Catalog(loadConfig(t, vars), manifest)
	require.NoError(t, err)
	require.Len(t, specs, 1)
	require.NotContains(t, specs[0].Env, "PACT_ADMIN_UI_URL")

	// PACT_SMTP_URL runs notifier-email as "email", the URL in its
	// environment and nowhere else.
	const smtp = "smtp://u:p@mail.example.com:587?from=board@example.com"
	pins, err := pluginhost.ParseManifest([]byte(`{"name": "email", "kind": "notifier", "binary": "notifier-email", "sha256": "` + sum + `"}`))
	require.NoError(t, err)
	specs, _, err = pluginhost.Catalog(loadConfig(t, map[string]string{"PACT_SMTP_URL": smtp}), pins)
	require.NoError(t, err)
	require.Len(t, specs, 1)
	require.Equal(t, "email", specs[0].Name)
	require.Equal(t, map[string]string{"PACT_SMTP_URL": smtp}, specs[0].Env)

	vars = map[string]string{"PACT_AUTH_ISSUER": "https://login.example.com",
		"PACT_PLUGINS": `[{"name": "hooks", "kind": "notifier", "binary": "notifier-webhook"}]`}
	specs, _, err = pluginhost.Catalog(loadConfig(t, vars), manifest)
	require.NoError(t, err)
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"hooks", "oidc"}, names)
}

// FromConfig runs the catalog Catalog builds, logs its warnings, and
// refuses an invalid PACT_PLUGINS: the board does not start with it.
func TestFromConfig(t *testing.T) {
	logs := &logtest.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})
	vars := map[string]string{
		"PACT_PLUGINS":           `[{"name": "test", "kind": "notifier", "binary": "` + testBin + `"}]`,
		"PACT_PLUGIN_DIR":        binDir,
		"PACT_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/x",
	}
	h, err := pluginhost.FromConfig(loadConfig(t, vars), nil, logger, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	require.Equal(t, []string{"test"}, h.Names(pluginhost.KindNotifier))
	n, err := h.Notifier("test")
	require.NoError(t, err)
	_, err = n.Capabilities(context.Background())
	require.NoError(t, err)
	require.Contains(t, logs.String(), "PACT_SLACK_WEBHOOK_URL")

	vars["PACT_PLUGINS"] = `[{"name": "test", "kind": "notifier"}`
	refused, err := pluginhost.FromConfig(loadConfig(t, vars), nil, logger, nil)
	require.Nil(t, refused)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "PACT_PLUGINS")
}
