package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

var t0 = time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func sample() notifier.Notification {
	return notifier.Notification{
		ID: "42", IdempotencyKey: "ntf_42_x", Kind: "approval_needed", Title: "Deploy <v2> & ภาษาไทย 🚀", Detail: "deploy.production",
		OrgID: "default", ProjectID: "shop", TaskID: "7d1c0b4e", AgentID: "builder",
		Links:     []notifier.Link{{Label: "Open task", URL: "https://admin.example.com/tasks/7d1c0b4e"}},
		CreatedAt: t0.Add(-time.Minute), Language: "th",
	}
}

// verify checks a delivery the way a receiver following the spec would,
// independently of sign().
func verify(t *testing.T, secret string, d delivery) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(d.header.Get("webhook-id") + "." + d.header.Get("webhook-timestamp") + "."))
	mac.Write(d.body)
	require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)), d.header.Get("webhook-signature"))
}

func TestDeliverSignsPerStandardWebhooks(t *testing.T) {
	r := newReceiver(t, http.StatusNoContent, "")
	w := localWebhook(r, t0)
	rc, err := w.Deliver(t.Context(), notifier.Destination{URL: r.srv.URL + "/hook?token=abc", Secret: testSecret}, sample())
	require.NoError(t, err)
	require.Equal(t, 204, rc.Status)

	d := r.next(t)
	require.Equal(t, "ntf_42_x", d.header.Get("webhook-id"))
	require.Equal(t, "1795989600", d.header.Get("webhook-timestamp"))
	require.Equal(t, "application/json", d.header.Get("Content-Type"))
	verify(t, testSecret, d)

	var got map[string]any
	require.NoError(t, json.Unmarshal(d.body, &got))
	require.Equal(t, map[string]any{
		"type":      "notification.approval_needed",
		"timestamp": "2026-11-29T21:59:00Z",
		"data": map[string]any{
			"id": "42", "idempotency_key": "ntf_42_x", "kind": "approval_needed",
			"title": "Deploy <v2> & ภาษาไทย 🚀", "detail": "deploy.production",
			"org_id": "default", "project_id": "shop", "task_id": "7d1c0b4e", "agent_id": "builder",
			"links":      []any{map[string]any{"label": "Open task", "url": "https://admin.example.com/tasks/7d1c0b4e"}},
			"created_at": "2026-11-29T21:59:00Z",
			"language":   "th",
		},
	}, got)
}

func TestRetriesCarryTheSameID(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "ok")
	now := t0
	w := New(Options{AllowPrivate: true, RootCAs: r.roots(), Now: func() time.Time { return now }})
	dest := notifier.Destination{URL: r.srv.URL, Secret: testSecret}
	_, err := w.Deliver(t.Context(), dest, sample())
	require.NoError(t, err)
	now = now.Add(30 * time.Second)
	_, err = w.Deliver(t.Context(), dest, sample())
	require.NoError(t, err)
	first, second := r.next(t), r.next(t)
	require.Equal(t, first.header.Get("webhook-id"), second.header.Get("webhook-id"))
	require.Equal(t, first.body, second.body, "the body is the same; only the attempt's timestamp moves")
	require.NotEqual(t, first.header.Get("webhook-timestamp"), second.header.Get("webhook-timestamp"))
	verify(t, testSecret, second)
}

func TestBriefIsPassedOnWithItsStructure(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	n := notifier.Notification{IdempotencyKey: "b1", Kind: "brief", Title: "Morning", Brief: &notifier.Brief{
		Greeting: "Hi", Sections: []notifier.BriefSection{{Title: "Needs you", Items: []notifier.BriefItem{{Text: "Approve", TaskID: "t1"}}}},
	}}
	_, err := localWebhook(r, t0).Deliver(t.Context(), notifier.Destination{URL: r.srv.URL, Secret: testSecret}, n)
	require.NoError(t, err)
	var got struct {
		Data struct {
			Brief brief `json:"brief"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.next(t).body, &got))
	require.Equal(t, brief{Greeting: "Hi", Sections: []section{{Title: "Needs you", Items: []item{{Text: "Approve", TaskID: "t1"}}}}}, got.Data.Brief)
}

func TestDataIsPassedOnAsTheEvent(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	w := localWebhook(r, t0)
	dest := notifier.Destination{URL: r.srv.URL, Secret: testSecret}
	n := notifier.Notification{IdempotencyKey: "pe1", Kind: "pact_event", Title: "W-001", Data: []byte(`{"pact_id":"p1","excerpt":"hi"}`)}
	_, err := w.Deliver(t.Context(), dest, n)
	require.NoError(t, err)
	var got struct {
		Data struct {
			Event map[string]any `json:"event"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.next(t).body, &got))
	require.Equal(t, map[string]any{"pact_id": "p1", "excerpt": "hi"}, got.Data.Event)

	n.Data = []byte(`[1]`) // not an object: left out
	_, err = w.Deliver(t.Context(), dest, n)
	require.NoError(t, err)
	require.NotContains(t, string(r.next(t).body), `"event"`)
}

func TestHumanIDNamesThePersonItIsFor(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	w := localWebhook(r, t0)
	dest := notifier.Destination{URL: r.srv.URL, Secret: testSecret}
	n := notifier.Notification{IdempotencyKey: "h1", Kind: "pact_unread", Title: "W-001", HumanID: "ana", Language: "th"}
	_, err := w.Deliver(t.Context(), dest, n)
	require.NoError(t, err)
	var got struct {
		Data map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.next(t).body, &got))
	require.Equal(t, "ana", got.Data["human_id"])
	require.Equal(t, "th", got.Data["language"])

	n.HumanID = "" // for the organization's people: left out
	_, err = w.Deliver(t.Context(), dest, n)
	require.NoError(t, err)
	require.NotContains(t, string(r.next(t).body), `"human_id"`)
}

func TestDeliverKeepsTheReceiversAnswer(t *testing.T) {
	for _, tt := range []struct {
		status int
		code   errs.Code
	}{
		{400, errs.InvalidRequest}, {401, errs.InvalidRequest}, {404, errs.InvalidRequest}, {410, errs.InvalidRequest},
		{408, errs.Unavailable}, {429, errs.Unavailable}, {500, errs.Unavailable}, {503, errs.Unavailable},
	} {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			r := newReceiver(t, tt.status, "nope:\n  bad signature")
			_, err := localWebhook(r, t0).Deliver(t.Context(), notifier.Destination{URL: r.srv.URL, Secret: testSecret}, sample())
			require.Equal(t, tt.code, errs.CodeOf(err))
			e, _ := errs.As(err)
			require.Equal(t, fmt.Sprintf("receiver answered %d: nope: bad signature", tt.status), e.Message)
		})
	}
}

func TestDeliverTimeoutAndOutage(t *testing.T) {
	block := make(chan struct{})
	slow := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-block }))
	t.Cleanup(func() { close(block); slow.Close() })
	roots := (&receiver{srv: slow}).roots()
	w := New(Options{AllowPrivate: true, RootCAs: roots})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := w.Deliver(ctx, notifier.Destination{URL: slow.URL + "/?token=SECRET", Secret: testSecret}, sample())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.ErrorContains(t, err, "did not answer in time")
	require.NotContains(t, err.Error(), "SECRET", "URLs may carry tokens")

	gone := httptest.NewTLSServer(http.NotFoundHandler())
	gone.Close()
	_, err = w.Deliver(t.Context(), notifier.Destination{URL: gone.URL + "/?token=SECRET", Secret: testSecret}, sample())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.NotContains(t, err.Error(), "SECRET")
}

func TestDeliverDoesNotFollowRedirects(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	hop := httptest.NewTLSServer(http.RedirectHandler(r.srv.URL, http.StatusTemporaryRedirect))
	t.Cleanup(hop.Close)
	w := New(Options{AllowPrivate: true, RootCAs: (&receiver{srv: hop}).roots()})
	_, err := w.Deliver(t.Context(), notifier.Destination{URL: hop.URL, Secret: testSecret}, sample())
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "receiver answered 307")
	require.Empty(t, r.got)
}

func TestDeliverRefusesBadDestinations(t *testing.T) {
	w := New(Options{})
	for _, d := range []notifier.Destination{
		{URL: "https://hooks.example.com/x", Secret: ""},
		{URL: "https://hooks.example.com/x", Secret: "whsec_short"},
		{URL: "https://hooks.example.com/x", Secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{URL: "http://hooks.example.com/x", Secret: testSecret},
		{URL: "ftp://hooks.example.com/x", Secret: testSecret},
		{URL: "not a url", Secret: testSecret},
	} {
		_, err := w.Deliver(t.Context(), d, sample())
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%+v", d)
	}
	n := sample()
	n.IdempotencyKey, n.ID = "", ""
	_, err := w.Deliver(t.Context(), notifier.Destination{URL: "https://hooks.example.com/x", Secret: testSecret}, n)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}

func TestSignKnownAnswer(t *testing.T) {
	// The same inputs signed by the official library (see interop_test.go).
	key, err := parseSecret(testSecret)
	require.NoError(t, err)
	require.Equal(t, knownSignature, sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`)))
	require.True(t, bytes.HasPrefix([]byte(knownSignature), []byte("v1,")))
}
