package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/modules/notify"
)

const sealedLine = "sealed stored secrets under the board's active key"

// startResealing runs a board of the notify module (runLogged) and waits
// for its reseal worker to finish.
func startResealing(t *testing.T, prepare func(w *kerneltest.World)) *logtest.Buffer {
	_, logs := runLogged(t, notify.Options{Notifiers: plugins{}}, func(w *kerneltest.World) {
		w.Person("", "ana", "owner")
		prepare(w)
	})
	eventually(t, 30*time.Second, func() bool { return logs.Contains("notify.reseal: worker finished") },
		"the reseal worker finishes: %s", logs.String())
	return logs
}

// A board that seals stored secrets at start says how many of each kind
// it sealed, an operator's sign that a key rotation took; one that finds
// nothing to seal says nothing of it.
func TestTheBoardSaysWhatItSealedAtStartAndNothingWhenNothingWas(t *testing.T) {
	logs := startResealing(t, func(w *kerneltest.World) {
		// In clear, as a board before sealing wrote them: no service writes
		// a secret unsealed.
		w.Exec(`UPDATE orgs SET slack_webhook_url = 'https://hooks.slack.com/services/T/B/plain' WHERE id = 'default';
			INSERT INTO notify_destinations (org_id, notifier, url, secret, created_by)
			VALUES ('default', 'webhook', 'https://receiver.example/plain', 'whsec_plain', 'ana')`)
	})
	line := logs.Line(sealedLine)
	require.NotEmpty(t, line, logs.String())
	require.Contains(t, line, "slack_webhooks=1")
	require.Contains(t, line, "destinations=1")

	logs = startResealing(t, func(*kerneltest.World) {})
	require.False(t, logs.Contains(sealedLine), "nothing was sealed: %s", logs.String())
}

// A destination is sealed again when either of its values is stale: here
// its URL is sealed under the active key and its secret in clear. One
// with no secret and its URL sealed under the active key is left as it is.
func TestADestinationIsResealedWhenEitherValueIsStale(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	keys := seal.New(keyring(t, "k1"))
	url, err := keys.Seal("https://receiver.example/half", "notify_destinations.url/default")
	require.NoError(t, err)
	w.Exec(`INSERT INTO notify_destinations (org_id, notifier, url, secret, created_by) VALUES ('default', 'webhook', ?, 'whsec_plain', 'ana')`, url)
	bare, err := keys.Seal("https://receiver.example/bare", "notify_destinations.url/default")
	require.NoError(t, err)
	w.Exec(`INSERT INTO notify_destinations (org_id, notifier, url, created_by) VALUES ('default', 'webhook', ?, 'ana')`, bare)

	n, err := notify.NewService(w.DB, ledger.New(nil), &notify.Options{Seal: keys}).ResealDestinations(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the destination whose secret was in clear")
	require.Equal(t, 1, countWhere(t, w.DB, "notify_destinations", `secret LIKE ?`, seal.Prefix+"k1:%"))
	require.Equal(t, 1, countWhere(t, w.DB, "notify_destinations", `url = ? AND secret IS NULL`, bare), "left as it was")
}
