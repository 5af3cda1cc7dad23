package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/notifier"
)

const taskURL = "https://admin.example.com/tasks/7d1c0b4e-0000-4000-8000-000000000001"

// roundTrip marshals msg as Deliver does and decodes it back with slack-go,
// so the assertions see what Slack would see.
func roundTrip(t *testing.T, msg *slack.WebhookMessage) slack.WebhookMessage {
	t.Helper()
	body, err := json.Marshal(msg)
	require.NoError(t, err)
	var got slack.WebhookMessage
	require.NoError(t, json.Unmarshal(body, &got))
	require.NotNil(t, got.Blocks)
	return got
}

func blockTypes(m slack.WebhookMessage) []string {
	var out []string
	for _, b := range m.Blocks.BlockSet {
		out = append(out, string(b.BlockType()))
	}
	return out
}

func sectionText(t *testing.T, b slack.Block) string {
	t.Helper()
	s, ok := b.(*slack.SectionBlock)
	require.True(t, ok, "want a section, got %T", b)
	require.Equal(t, slack.MarkdownType, s.Text.Type)
	return s.Text.Text
}

func TestHeadlinesPerKind(t *testing.T) {
	for _, tt := range []struct{ kind, header string }{
		{"approval_needed", "🟡 Waiting for approval"},
		{"deferred", "↩️ Sent back for a person to decide"},
		{"question", "❓ An agent has a question"},
		{"task_closed", "✅ Task closed"},
		{"awaiting_session", "💤 Waiting for someone to open a session"},
		{"brief", "📋 Daily brief"},
		{"expiring", "⏳ Expiring soon"},
		{"expired", "⛔ Expired — the agent has stopped"},
		{"message", "💬 An agent wrote to you"},
		{"something_new", "🔔 something_new"},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			m := roundTrip(t, Card(notifier.Notification{Kind: tt.kind, Title: "Deploy v2"}, "", mustCatalog()))
			h := m.Blocks.BlockSet[0].(*slack.HeaderBlock)
			require.Equal(t, tt.header, h.Text.Text)
			require.Equal(t, slack.PlainTextType, h.Text.Type)
			require.Equal(t, tt.header+" · Deploy v2", m.Text, "the fallback text is always set")
		})
	}
}

func TestStandardCard(t *testing.T) {
	n := notifier.Notification{
		Kind: "approval_needed", Title: "Ship <v2> & tell @here", Detail: "\n  deploy.production\nsecond line is the body",
		ProjectID: "shop", AgentID: "builder", TaskID: "7d1c0b4e",
		Links: []notifier.Link{{Label: "Open task", URL: taskURL}},
	}
	m := roundTrip(t, Card(n, "", mustCatalog()))
	require.Equal(t, []string{"header", "section", "context", "actions"}, blockTypes(m))
	require.Equal(t, "*<"+taskURL+"|Ship &lt;v2&gt; &amp; tell @here>*\ndeploy.production", sectionText(t, m.Blocks.BlockSet[1]))
	require.NotContains(t, fmt.Sprint(m), "second line", "only the first detail line is shown")

	ctx := m.Blocks.BlockSet[2].(*slack.ContextBlock)
	require.Len(t, ctx.ContextElements.Elements, 1)
	require.Equal(t, "shop · by builder", ctx.ContextElements.Elements[0].(*slack.TextBlockObject).Text)

	act := m.Blocks.BlockSet[3].(*slack.ActionBlock)
	require.Len(t, act.Elements.ElementSet, 1)
	btn := act.Elements.ElementSet[0].(*slack.ButtonBlockElement)
	require.Equal(t, "Open task", btn.Text.Text)
	require.Equal(t, taskURL, btn.URL)
	require.Equal(t, "🟡 Waiting for approval · Ship &lt;v2&gt; &amp; tell @here", m.Text, "the fallback is escaped too: it is parsed as mrkdwn")
}

func TestStandardCardWithoutLinkOrAgent(t *testing.T) {
	m := roundTrip(t, Card(notifier.Notification{Kind: "task_closed", Title: "Done", Detail: "completed", ProjectID: "shop"}, "", mustCatalog()))
	require.Equal(t, []string{"header", "section", "context"}, blockTypes(m))
	require.Equal(t, "*Done*\ncompleted", sectionText(t, m.Blocks.BlockSet[1]))
	require.Equal(t, "shop", m.Blocks.BlockSet[2].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text)
}

// A card for one person says, under the headline, whom it is for, in the
// notification's language; the rest of the card is unchanged.
func TestACardForOnePersonSaysWhoItIsFor(t *testing.T) {
	n := notifier.Notification{Kind: "pact_unread", Title: "W-001", Detail: "hi", ProjectID: "shop", HumanID: "ana"}
	for lang, want := range map[string]string{"": "For ana", "en": "For ana", "th": "สำหรับ ana"} {
		n.Language = lang
		m := roundTrip(t, Card(n, "", mustCatalog()))
		require.Equal(t, []string{"header", "context", "section", "context"}, blockTypes(m), "language %q", lang)
		require.Equal(t, want, m.Blocks.BlockSet[1].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text)
		require.Equal(t, "*W-001*\nhi", sectionText(t, m.Blocks.BlockSet[2]))
	}
	n.HumanID, n.Language = "<!channel>", "th"
	m := roundTrip(t, Card(n, "", mustCatalog()))
	require.Equal(t, "สำหรับ &lt;!channel&gt;", m.Blocks.BlockSet[1].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text,
		"escaped like every shown id")
}

func TestTaskLinkFromAdminUI(t *testing.T) {
	n := notifier.Notification{Kind: "deferred", Title: "Pick a price", TaskID: "t 1", ProjectID: "shop"}
	m := roundTrip(t, Card(n, "https://ui.example.com/", mustCatalog()))
	require.Equal(t, "*<https://ui.example.com/tasks/t%201|Pick a price>*", sectionText(t, m.Blocks.BlockSet[1]))
	btn := m.Blocks.BlockSet[3].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement)
	require.Equal(t, "https://ui.example.com/tasks/t%201", btn.URL)
}

func TestUnsafeLinksAreDropped(t *testing.T) {
	for _, u := range []string{"javascript:alert(1)", "/tasks/1", "ftp://x/y", "https://" + strings.Repeat("a", maxURL)} {
		m := roundTrip(t, Card(notifier.Notification{Kind: "question", Title: "Q", Links: []notifier.Link{{Label: "Open task", URL: u}}}, "", mustCatalog()))
		require.Equal(t, []string{"header", "section"}, blockTypes(m), u)
		require.Equal(t, "*Q*", sectionText(t, m.Blocks.BlockSet[1]))
	}
}

func TestLinkURLCannotBreakOutOfTheLink(t *testing.T) {
	n := notifier.Notification{Kind: "question", Title: "Q", Links: []notifier.Link{{Label: "Open task", URL: "https://a.example/t?x=1&y=|2>"}}}
	text := sectionText(t, roundTrip(t, Card(n, "", mustCatalog())).Blocks.BlockSet[1])
	require.Equal(t, "*<https://a.example/t?x=1&amp;y=%7C2%3E|Q>*", text)
}

func TestLimits(t *testing.T) {
	long := strings.Repeat("<&>", 2000) // escapes to 24000 chars
	n := notifier.Notification{Kind: "brief", Title: strings.Repeat("T", 400), Detail: long, ProjectID: "p"}
	m := roundTrip(t, Card(n, "", mustCatalog()))
	for _, b := range m.Blocks.BlockSet {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			require.LessOrEqual(t, utf8.RuneCountInString(b.Text.Text), maxHeader)
		case *slack.SectionBlock:
			require.LessOrEqual(t, utf8.RuneCountInString(b.Text.Text), maxSectionText)
			require.NotRegexp(t, `&[a-z]*…$`, b.Text.Text, "an entity is never cut in half")
		}
	}
	require.Equal(t, []string{"header", "section", "section", "context"}, blockTypes(m), "a brief's title and detail are two sections")
	require.LessOrEqual(t, utf8.RuneCountInString(m.Text), maxFallback)
}

func TestClipMrkdwn(t *testing.T) {
	require.Equal(t, "abc", clipMrkdwn("abc", 3))
	require.Equal(t, "ab…", clipMrkdwn("abcd", 3))
	require.Equal(t, "a…", clipMrkdwn("a&amp;b", 5), "the half entity is dropped")
	require.Equal(t, "a&amp;…", clipMrkdwn("a&amp;bcdef", 7))
	require.Equal(t, "ไทย…", clip("ไทยภาษา", 4), "runes, not bytes")
}
