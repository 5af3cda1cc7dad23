package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// With body=data the body is the notification's data as it came, with the
// content type asked for and the headers the options name; the Standard
// Webhooks signature covers that body, and a retry keeps its webhook-id.
// This is how the board posts an A2A push notification (docs/a2a.md).
func TestOptionsPostTheDataWithTheHeadersAsked(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	now := t0
	w := New(Options{AllowPrivate: true, RootCAs: r.roots(), Now: func() time.Time { return now }})
	data := `{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}`
	n := notifier.Notification{IdempotencyKey: "a2a_c1_7", Kind: "a2a_push", Title: "t1", Data: []byte(data)}
	for _, tc := range []struct {
		name    string
		options map[string]string
		auth    string
		token   string
	}{
		{"Authorization", map[string]string{"body": "data", "content-type": "application/a2a+json", "authorization": "Bearer s3cr3t"},
			"Bearer s3cr3t", ""},
		{"Token", map[string]string{"body": "data", "content-type": "application/a2a+json", "notification-token": "tok en"}, "", "tok en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := notifier.Destination{URL: r.srv.URL + "/a2a", Secret: testSecret, Options: tc.options}
			prepared, err := w.PrepareDestination(t.Context(), dest)
			require.NoError(t, err)
			require.Equal(t, tc.options, prepared.Options, "the options are kept as given")
			_, err = w.Deliver(t.Context(), dest, n)
			require.NoError(t, err)
			now = now.Add(time.Minute)
			_, err = w.Deliver(t.Context(), dest, n)
			require.NoError(t, err)
			first, retry := r.next(t), r.next(t)
			for _, d := range []delivery{first, retry} {
				require.Equal(t, data, string(d.body), "the body is the data, verbatim")
				require.Equal(t, "application/a2a+json", d.header.Get("Content-Type"))
				require.Equal(t, tc.auth, d.header.Get("Authorization"))
				require.Equal(t, tc.token, d.header.Get("X-A2A-Notification-Token"))
				require.Equal(t, "a2a_c1_7", d.header.Get("webhook-id"))
				verify(t, testSecret, d)
			}
			require.NotEqual(t, first.header.Get("webhook-timestamp"), retry.header.Get("webhook-timestamp"))
		})
	}
}

// No options, or options this plugin does not read, deliver the envelope
// as before: a destination stored by an older board is unchanged.
func TestWithoutOptionsTheEnvelopeIsUnchanged(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	w := localWebhook(r, t0)
	for _, options := range []map[string]string{nil, {"channel": "#ops"}, {"body": "envelope"}} {
		_, err := w.Deliver(t.Context(), notifier.Destination{URL: r.srv.URL, Secret: testSecret, Options: options}, sample())
		require.NoError(t, err)
		d := r.next(t)
		require.Equal(t, "application/json", d.header.Get("Content-Type"))
		require.Empty(t, d.header.Get("Authorization"))
		require.Empty(t, d.header.Get("X-A2A-Notification-Token"))
		require.True(t, strings.HasPrefix(string(d.body), `{"type":"notification.approval_needed"`), "%s", d.body)
		verify(t, testSecret, d)
	}
}

// Options that are wrong are refused when the destination is prepared and
// when it is delivered to, without repeating a credential, and nothing is
// posted.
func TestBadOptionsAreRefusedAndNothingIsPosted(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	w := localWebhook(r, t0)
	n := notifier.Notification{IdempotencyKey: "x1", Kind: "a2a_push", Data: []byte(`{"task":{}}`)}
	for _, tc := range []struct {
		name    string
		options map[string]string
		says    string
	}{
		{"UnknownBody", map[string]string{"body": "raw"}, "envelope (the default) or data"},
		{"ContentTypeWithTheEnvelope", map[string]string{"content-type": "application/json"}, "with body=data only"},
		{"NotJSON", map[string]string{"body": "data", "content-type": "text/plain"}, "application/<type>+json"},
		{"AuthorizationWithoutCredentials", map[string]string{"authorization": "Bearer"}, "<scheme> <credentials>"},
		{"AuthorizationWithANewline", map[string]string{"authorization": "Bearer a\r\nX-Evil: 1"}, "<scheme> <credentials>"},
		{"TokenWithANewline", map[string]string{"notification-token": "a\nb"}, "visible ASCII"},
		{"TokenTooLong", map[string]string{"notification-token": strings.Repeat("a", maxHeaderValue+1)}, "at most 4096"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := notifier.Destination{URL: r.srv.URL, Secret: testSecret, Options: tc.options}
			_, err := w.PrepareDestination(t.Context(), dest)
			require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
			require.Contains(t, err.Error(), tc.says)
			require.NotContains(t, err.Error(), "X-Evil")
			_, err = w.Deliver(t.Context(), dest, n)
			require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
		})
	}
	// body=data with no JSON object to post is refused for good.
	_, err := w.Deliver(t.Context(), notifier.Destination{URL: r.srv.URL, Secret: testSecret, Options: map[string]string{"body": "data"}},
		notifier.Notification{IdempotencyKey: "x2", Kind: "a2a_push", Data: []byte(`[1]`)})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	require.Contains(t, err.Error(), "no JSON object")
	select {
	case d := <-r.got:
		t.Fatalf("a refused delivery was posted: %s", d.body)
	default:
	}
}
