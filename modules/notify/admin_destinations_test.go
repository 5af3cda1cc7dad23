package notify_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/notify"
)

// adminBoard is the notify module behind the Admin API of a kerneltest
// board, its "webhook" notifier a poster reaching rcv: the Office cast in
// the default organization, bo owning acme.
func adminBoard(t *testing.T) (*kerneltest.World, *receiver) {
	t.Helper()
	rcv := newReceiver(t)
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true},
		notify.New(notify.Options{Notifiers: plugins{"webhook": &poster{client: rcv.Client()}}}))
	w.Office()
	w.Org("acme", "bo")
	return w, rcv
}

func TestAnOwnerManagesDestinationsOverTheAdminAPI(t *testing.T) {
	w, rcv := adminBoard(t)
	got := w.Admin("ana", "POST", "/destinations", fmt.Sprintf(`{"notifier": "webhook", "url": %q}`, rcv.URL+"/hooks/abcdef123456"))
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	secret, _ := got.Body["secret"].(string)
	require.Regexp(t, `^whsec_`, secret, "the answer carries the generated secret, this once")
	require.Equal(t, rcv.URL+"/…3456", got.Body["url_hint"])
	require.Equal(t, true, got.Body["has_secret"])
	require.Equal(t, "ana", got.Body["created_by"])
	id := got.Body["id"].(float64)

	list := w.Admin("vic", "GET", "/destinations", "")
	require.Equal(t, http.StatusOK, list.Status, list.Raw)
	items := list.Body["destinations"].([]any)
	require.Len(t, items, 1)
	item := items[0].(map[string]any)
	require.Equal(t, id, item["id"])
	require.Equal(t, "webhook", item["notifier"])
	require.Equal(t, rcv.URL+"/…3456", item["url_hint"])
	require.Nil(t, item["disabled_at"])
	require.NotContains(t, item, "secret")
	require.NotContains(t, item, "url")
	require.NotContains(t, list.Raw, "abcdef123456", "a listing shows the hint, never the URL")
	require.NotContains(t, list.Raw, secret)
	other := w.Admin("bo", "GET", "/destinations", "")
	require.Equal(t, http.StatusOK, other.Status, other.Raw)
	require.Empty(t, other.Body["destinations"], "acme sees only its own")

	off := w.Admin("ana", "POST", fmt.Sprintf("/destinations/%d/disable", int64(id)), "")
	require.Equal(t, http.StatusOK, off.Status, off.Raw)
	require.Equal(t, "ana", off.Body["disabled_by"])
	require.NotNil(t, off.Body["disabled_at"])
	list = w.Admin("ana", "GET", "/destinations", "")
	require.NotNil(t, list.Body["destinations"].([]any)[0].(map[string]any)["disabled_at"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.destination.add' AND outcome = 'ok'`))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.destination.disable' AND outcome = 'ok'`))

	// The service's refusals keep their codes over HTTP.
	missing := w.Admin("bo", "POST", fmt.Sprintf("/destinations/%d/disable", int64(id)), "")
	require.Equal(t, http.StatusNotFound, missing.Status, missing.Raw)
	require.Equal(t, "not_found", missing.Body["error"], "another organization's destination is not found")
	bad := w.Admin("ana", "POST", "/destinations", `{"notifier": "pager", "url": "https://example.com/hook"}`)
	require.Equal(t, http.StatusBadRequest, bad.Status, bad.Raw)
	require.Equal(t, "invalid_request", bad.Body["error"])
}

func TestDestinationWritesNeedAnOwner(t *testing.T) {
	w, rcv := adminBoard(t)
	added := w.Admin("ana", "POST", "/destinations", fmt.Sprintf(`{"notifier": "webhook", "url": %q}`, rcv.URL+"/hook"))
	require.Equal(t, http.StatusCreated, added.Status, added.Raw)
	disable := fmt.Sprintf("/destinations/%d/disable", int64(added.Body["id"].(float64)))
	for _, m := range kerneltest.Staff() {
		if m.Role == identity.Owner {
			continue
		}
		t.Run(string(m.Role), func(t *testing.T) {
			got := w.Admin(m.ID, "POST", "/destinations", fmt.Sprintf(`{"notifier": "webhook", "url": %q}`, rcv.URL+"/mine"))
			kerneltest.RequireBelowRole(t, got, m, identity.Owner)
			kerneltest.RequireBelowRole(t, w.Admin(m.ID, "POST", disable, ""), m, identity.Owner)
			list := w.Admin(m.ID, "GET", "/destinations", "")
			require.Equal(t, http.StatusOK, list.Status, list.Raw)
			require.Len(t, list.Body["destinations"], 1, "a viewer reads the list")
		})
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notify_destinations WHERE disabled_at IS NULL`), "refusals change nothing")
	// The gate's refusals are logged like the service's own.
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.destination.add' AND outcome = 'forbidden'`))
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.destination.disable' AND e.outcome = 'forbidden' AND p.content->>'destination_id' IS NOT NULL`))
}

// A destination write the role gate refuses is recorded on the log, and
// having recorded it is no failure: the board's own log reports no error
// about recording it.
func TestAGateRefusalRecordedOnTheLogIsNoFailureToRecordIt(t *testing.T) {
	logs := &logtest.Buffer{}
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true,
		Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})},
		notify.New(notify.Options{Notifiers: plugins{"webhook": &recorder{}}}))
	w.Office()
	got := w.Admin("vic", "POST", "/destinations", `{"notifier": "webhook", "url": "https://example.com/hook"}`)
	kerneltest.RequireBelowRole(t, got, kerneltest.Member{ID: "vic", Role: identity.Viewer}, identity.Owner)
	got = w.Admin("vic", "POST", "/destinations/7/disable", "")
	kerneltest.RequireBelowRole(t, got, kerneltest.Member{ID: "vic", Role: identity.Viewer}, identity.Owner)

	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.destination.add' AND outcome = 'forbidden'
		AND actor = 'human:vic'`))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.destination.disable' AND e.outcome = 'forbidden' AND p.content->>'destination_id' = '7'`))
	require.NotContains(t, logs.String(), "record a refused admin call")
}
