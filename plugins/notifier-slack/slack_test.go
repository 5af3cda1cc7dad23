package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

const hook = "https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX"

// receiver is a local stand-in for Slack's webhook endpoint: it decodes each
// post into slack-go's types and answers with status and body.
type receiver struct {
	srv  *httptest.Server
	got  chan slack.WebhookMessage
	path chan string
}

func newReceiver(t *testing.T, status int, body string) *receiver {
	t.Helper()
	r := &receiver{got: make(chan slack.WebhookMessage, 10), path: make(chan string, 10)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		var m slack.WebhookMessage
		if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
			json.Unmarshal(raw, &m) != nil {
			http.Error(w, "invalid_payload", http.StatusBadRequest)
			return
		}
		r.got <- m
		r.path <- req.URL.Path
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func TestDeliverPostsTheCard(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "ok")
	s := New(Options{APIBase: r.srv.URL})
	n := notifier.Notification{
		ID: "42", IdempotencyKey: "k42", Kind: "question", Title: "Which region?", Detail: "eu or us",
		ProjectID: "shop", AgentID: "builder", Links: []notifier.Link{{Label: "Open task", URL: taskURL}},
	}
	rc, err := s.Deliver(t.Context(), notifier.Destination{URL: hook}, n)
	require.NoError(t, err)
	require.Equal(t, &notifier.Receipt{Status: 200, Detail: "ok"}, rc)

	m := <-r.got
	require.Equal(t, "/services/T000/B000/XXXXsecretXXXX", <-r.path)
	require.Equal(t, "❓ An agent has a question · Which region?", m.Text)
	require.Equal(t, []string{"header", "section", "context", "actions"}, blockTypes(m))
	require.Equal(t, "*<"+taskURL+"|Which region?>*\neu or us", sectionText(t, m.Blocks.BlockSet[1]))
}

func TestDeliverKeepsSlacksAnswer(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		code   errs.Code
		msg    string
	}{
		{"InvalidBlocks", 400, "invalid_blocks", errs.InvalidRequest, "slack answered 400: invalid_blocks"},
		{"NoService", 404, "no_service", errs.InvalidRequest, "slack answered 404: no_service"},
		{"ArchivedChannel", 410, "channel_is_archived", errs.InvalidRequest, "slack answered 410: channel_is_archived"},
		{"RateLimited", 429, "rate_limited", errs.Unavailable, "slack answered 429: rate_limited"},
		{"Outage", 503, "  service\n unavailable ", errs.Unavailable, "slack answered 503: service unavailable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, tt.status, tt.body)
			_, err := New(Options{APIBase: r.srv.URL}).Deliver(t.Context(), notifier.Destination{URL: hook}, notifier.Notification{Kind: "message", Title: "hi"})
			require.Equal(t, tt.code, errs.CodeOf(err))
			e, _ := errs.As(err)
			require.Equal(t, tt.msg, e.Message)
		})
	}
}

func TestDeliverTimeoutIsUnavailableAndHidesTheURL(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(func() { close(block); srv.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := New(Options{APIBase: srv.URL}).Deliver(ctx, notifier.Destination{URL: hook}, notifier.Notification{Kind: "message"})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.Contains(t, err.Error(), "did not answer in time")
	require.NotContains(t, err.Error(), "XXXXsecretXXXX", "the webhook path is a secret")
}

func TestDeliverUnreachableIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	_, err := New(Options{APIBase: base}).Deliver(t.Context(), notifier.Destination{URL: hook}, notifier.Notification{Kind: "message"})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.NotContains(t, err.Error(), "XXXXsecretXXXX")
}

func TestDeliverDoesNotFollowRedirects(t *testing.T) {
	r := newReceiver(t, 200, "ok")
	srv := httptest.NewServer(http.RedirectHandler(r.srv.URL+"/elsewhere", http.StatusTemporaryRedirect))
	t.Cleanup(srv.Close)
	_, err := New(Options{APIBase: srv.URL}).Deliver(t.Context(), notifier.Destination{URL: hook}, notifier.Notification{Kind: "message"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Contains(t, err.Error(), "slack answered 307")
	require.Empty(t, r.got)
}

func TestDestinationMustBeASlackWebhook(t *testing.T) {
	s := New(Options{})
	for _, u := range []string{
		"http://hooks.slack.com/services/T0/B0/X",
		"https://hooks.slack.com.evil.example/services/T0/B0/X",
		"https://evil.example/services/T0/B0/X",
		"https://hooks.slack.com/services/T0/B0/X?channel=general",
		"https://hooks.slack.com/services/T0/B0/X#frag",
		"https://user@hooks.slack.com/services/T0/B0/X",
		"https://hooks.slack.com:8443/services/T0/B0/X",
		"https://hooks.slack.com/services/",
		"https://hooks.slack.com/services/../../api/chat.postMessage",
		"https://hooks.slack.com/workflows/T0/A0/1/X",
		"https://hooks.slack.com/services/" + strings.Repeat("a", 201),
		"",
	} {
		_, err := s.PrepareDestination(t.Context(), notifier.Destination{URL: u})
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), u)
		require.Contains(t, err.Error(), "https://hooks.slack.com/services/…")

		// A destination that slipped past preparation is refused at delivery too.
		_, err = s.Deliver(t.Context(), notifier.Destination{URL: u}, notifier.Notification{Kind: "message"})
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), u)
	}
	d, err := s.PrepareDestination(t.Context(), notifier.Destination{URL: " " + hook + "\n"})
	require.NoError(t, err)
	require.Equal(t, hook, d.URL)
}

func TestCapabilities(t *testing.T) {
	c, err := New(Options{}).Capabilities(t.Context())
	require.NoError(t, err)
	require.Equal(t, "notifier-slack", c.Name)
	require.True(t, c.Structured)
	require.Empty(t, c.Kinds, "every kind is accepted")
}
