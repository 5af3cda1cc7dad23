package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type received struct {
	id, timestamp, signature string
	body                     []byte
}

// A task needing approval, posted over MCP, reaches a webhook receiver through
// the outbox, a delivery worker and the real notifier-webhook plugin running
// as a subprocess, signed per the Standard Webhooks specification.
func TestANotificationTravelsThroughTheRealWebhookPlugin(t *testing.T) {
	pluginDir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "notifier-webhook"), "./plugins/notifier-webhook")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the plugin: %s", out)

	var mu sync.Mutex
	var got []received
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), body})
		mu.Unlock()
	}))
	defer receiver.Close()

	b := startE2E(t, map[string]string{
		"PACT_PLUGIN_DIR": pluginDir,
		"PACT_PLUGINS":    `[{"name":"webhook","kind":"notifier","binary":"notifier-webhook","env":{"PACT_WEBHOOK_ALLOW_PRIVATE":"1"}}]`,
	})
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	secret := "whsec_" + base64.StdEncoding.EncodeToString(key)
	_, err = b.d.ExecContext(context.Background(), `INSERT INTO notify_destinations (org_id, notifier, url, secret, created_by)
		VALUES ('default', 'webhook', ?, ?, 'ana')`, receiver.URL, secret)
	require.NoError(t, err)

	code := connect(t, b.base, "code-web", b.tokens["code-web"])
	code.ok("pact_post", map[string]any{"project_id": "web", "title": "Deploy the site", "body": "secret plan: do not forward",
		"mandate_id": b.roots["code-web"], "action": "deploy.web"})

	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) > 0 }, 30*time.Second, 50*time.Millisecond,
		"the approval_needed notification reaches the receiver")
	mu.Lock()
	d := got[0]
	mu.Unlock()
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(d.id + "." + d.timestamp + "." + string(d.body)))
	require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)), d.signature)
	var payload struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(d.body, &payload))
	require.Equal(t, "notification.approval_needed", payload.Type)
	require.NotContains(t, string(d.body), "secret plan", "a notification never carries the task body")
	var key2 string
	require.NoError(t, b.d.NewRaw(`SELECT idempotency_key FROM notifications WHERE kind = 'approval_needed'`).Scan(context.Background(), &key2))
	require.Equal(t, key2, d.id, "the webhook id is the notification's idempotency key")
	require.Eventually(t, func() bool {
		var n int
		_ = b.d.NewRaw(`SELECT count(*) FROM notifications WHERE sent_at IS NOT NULL`).Scan(context.Background(), &n)
		return n == 1
	}, 10*time.Second, 50*time.Millisecond)
}
