package main

import (
	"net/http"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
	"github.com/pactboard/pact/sdk/plugintest"
)

// The plugin as the host sees it: every call over real gRPC, in-process.

func TestPluginDeliversABriefCard(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "ok")
	p := plugintest.Notifier(t, New(Options{APIBase: r.srv.URL}))

	caps, err := p.Capabilities(t.Context())
	require.NoError(t, err)
	require.Equal(t, "notifier-slack", caps.Name)
	require.True(t, caps.Structured)

	d, err := p.PrepareDestination(t.Context(), notifier.Destination{URL: hook})
	require.NoError(t, err)
	rc, err := p.Deliver(t.Context(), *d, briefNotification())
	require.NoError(t, err)
	require.Equal(t, 200, rc.Status)

	m := <-r.got
	require.Equal(t, "📋 Good morning &lt;team&gt;", m.Text)
	require.Len(t, m.Blocks.BlockSet, 14, "the brief's structure crossed the wire")
	require.Equal(t, "https://admin.example.com/tasks/t1", m.Blocks.BlockSet[4].(*slack.SectionBlock).Accessory.ButtonElement.URL)
}

func TestPluginRefusalsKeepTheirCode(t *testing.T) {
	p := plugintest.Notifier(t, New(Options{}))
	_, err := p.PrepareDestination(t.Context(), notifier.Destination{URL: "https://evil.example/services/T/B/X"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "https://hooks.slack.com/services/…")

	for _, tt := range []struct {
		status int
		answer string
		code   errs.Code
	}{{400, "invalid_blocks", errs.InvalidRequest}, {503, "try later", errs.Unavailable}} {
		r := newReceiver(t, tt.status, tt.answer)
		p := plugintest.Notifier(t, New(Options{APIBase: r.srv.URL}))
		_, err := p.Deliver(t.Context(), notifier.Destination{URL: hook}, notifier.Notification{Kind: "message", Title: "hi"})
		require.Equal(t, tt.code, errs.CodeOf(err))
		e, _ := errs.As(err)
		require.Contains(t, e.Message, "slack answered")
		require.Contains(t, e.Message, tt.answer, "Slack's answer survives the wire")
	}
}

// The board's language crosses the wire: a Thai organization's card is
// posted in Thai, an older board's (no language) in English.
func TestPluginWritesTheCardInTheNotificationsLanguage(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "ok")
	p := plugintest.Notifier(t, New(Options{APIBase: r.srv.URL}))
	n := notifier.Notification{Kind: "approval_needed", Title: "Deploy", ProjectID: "web", AgentID: "code-web",
		Links: []notifier.Link{{Label: "Open task", URL: taskURL}}, Language: "th"}
	_, err := p.Deliver(t.Context(), notifier.Destination{URL: hook}, n)
	require.NoError(t, err)
	m := <-r.got
	require.Equal(t, "🟡 รออนุมัติ · Deploy", m.Text)
	require.Equal(t, "เปิดงาน", m.Blocks.BlockSet[3].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement).Text.Text)

	n.Language = ""
	_, err = p.Deliver(t.Context(), notifier.Destination{URL: hook}, n)
	require.NoError(t, err)
	m = <-r.got
	require.Equal(t, "🟡 Waiting for approval · Deploy", m.Text)
}
