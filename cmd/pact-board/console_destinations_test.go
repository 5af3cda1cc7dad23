package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
)

// withWebhookPlugin adds the real notifier-webhook plugin, built for the
// test, to a console board's PACT_PLUGINS as "webhook", allowed to reach
// this machine (the receiver is a local server).
func withWebhookPlugin(t *testing.T) func(vars map[string]string) {
	return func(vars map[string]string) {
		t.Helper()
		build := exec.Command("go", "build", "-o", filepath.Join(vars["PACT_PLUGIN_DIR"], "notifier-webhook"), "./plugins/notifier-webhook")
		build.Dir = filepath.Join("..", "..")
		out, err := build.CombinedOutput()
		require.NoError(t, err, "build the plugin: %s", out)
		var catalog []map[string]any
		require.NoError(t, json.Unmarshal([]byte(vars["PACT_PLUGINS"]), &catalog))
		catalog = append(catalog, map[string]any{"name": "webhook", "kind": "notifier", "binary": "notifier-webhook",
			"env": map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1"}})
		raw, err := json.Marshal(catalog)
		require.NoError(t, err)
		vars["PACT_PLUGINS"] = string(raw)
	}
}

// TestConsoleDestinationsAddAndDisable: the owner adds a webhook
// destination in Settings, sees its secret once and the destination listed
// by its hint, then disables it after a confirmation naming the effect.
func TestConsoleDestinationsAddAndDisable(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoardWith(t, withWebhookPlugin(t))
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(rcv.Close)
	count := func(q string) int {
		var n int
		require.NoError(t, c.d.NewRaw(q).Scan(context.Background(), &n))
		return n
	}

	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/settings")
	p.ExpectText("Notification destinations")
	p.ExpectText("No destinations yet.")
	p.Fill("URL", rcv.URL+"/hooks/pact-abcdef")
	p.Click("button", "Add destination")
	hint := rcv.URL + "/…cdef"
	p.ExpectText("Notifications now go to " + hint + " through webhook.")
	p.ExpectText("is shown this once")
	require.Regexp(t, `^whsec_`, p.Text(`[aria-label="The new destination's secret"] code`), "the plugin made the secret")
	p.ExpectText("added by owner")
	require.Empty(t, browsertest.Serious(p.Axe()), "the owner's view: the form and the secret")
	require.Equal(t, 1, count(`SELECT count(*) FROM notify_destinations WHERE disabled_at IS NULL`))

	p.ClickIn("li", hint, "button", "Disable")
	p.ExpectText("Stop sending notifications to " + hint)
	require.Equal(t, 1, count(`SELECT count(*) FROM notify_destinations WHERE disabled_at IS NULL`), "the dialog only asks")
	p.ClickIn("dialog", "Stop sending notifications to", "button", "Disable")
	p.ExpectText("Notifications no longer go to " + hint + ".")
	p.ExpectText("disabled by owner")
	require.Equal(t, 1, count(`SELECT count(*) FROM notify_destinations WHERE disabled_at IS NOT NULL`))
	c.requireAdminAPIOnly()
}
