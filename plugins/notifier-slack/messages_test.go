package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/notifier"
)

// codeMessageIDs reads this package's source and returns every msgID
// constant's value, so a message added to the code is checked here without
// anyone listing it.
func codeMessageIDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var ids []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		file, err := parser.ParseFile(token.NewFileSet(), f, src, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil || fmtIdent(vs.Type) != "msgID" {
				return true
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				require.True(t, ok, "msgID constants are string literals")
				s, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				ids = append(ids, s)
			}
			return true
		})
	}
	slices.Sort(ids)
	return ids
}

func fmtIdent(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// Every catalog file holds the same messages, and they are exactly the
// code's msgID constants: a message the code names cannot be missing from
// a language, and no file keeps a message nobody uses.
func TestEveryMessageIsInEveryLanguage(t *testing.T) {
	cat, err := newCatalog()
	require.NoError(t, err)
	code := codeMessageIDs(t)
	require.NotEmpty(t, code)
	files, err := filepath.Glob("locales/active.*.json")
	require.NoError(t, err)
	require.Len(t, files, len(cat.ids), "every file is parsed")
	require.ElementsMatch(t, []string{"en", "th"}, keys(cat.ids))
	for lang, ids := range cat.ids {
		got := slices.Clone(ids)
		slices.Sort(got)
		require.Equal(t, code, got, "catalog %s against the code's msgID constants", lang)
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A Thai organization's cards carry the original's words
// (docs/specs/behavior.md §8.7): headlines, the "โดย" context, the "เปิดงาน"
// and "เปิดกระดาน" buttons. English is the default: no language, or one
// this plugin does not know, reads English.
func TestThaiCardsUseTheOriginalsWords(t *testing.T) {
	cat := mustCatalog()
	for _, tt := range []struct{ kind, header string }{
		{"approval_needed", "🟡 รออนุมัติ"},
		{"deferred", "↩️ ส่งกลับให้คนตัดสิน"},
		{"question", "❓ agent ถามคำถาม"},
		{"task_closed", "✅ งานปิดแล้ว"},
		{"awaiting_session", "💤 รอคนเปิด session"},
		{"brief", "📋 รายงานประจำวัน"},
		{"expiring", "⏳ ใกล้หมดอายุ"},
		{"expired", "⛔ หมดอายุแล้ว agent หยุดทำงาน"},
		{"message", "💬 agent ส่งข้อความถึงคุณ"},
		{"something_new", "🔔 something_new"},
	} {
		m := roundTrip(t, Card(notifier.Notification{Kind: tt.kind, Title: "Deploy v2", Language: "th"}, "", cat))
		require.Equal(t, tt.header, m.Blocks.BlockSet[0].(*slack.HeaderBlock).Text.Text, tt.kind)
		require.Equal(t, tt.header+" · Deploy v2", m.Text)
	}

	// The original's own check (docs/specs/behavior.md §13, test_notify.py).
	n := notifier.Notification{Kind: "deferred", Title: "a <b> & c", Detail: "why", ProjectID: "web", AgentID: "code-web",
		Links: []notifier.Link{{Label: "Open task", URL: taskURL}}, Language: "th"}
	m := roundTrip(t, Card(n, "", cat))
	require.Equal(t, "↩️ ส่งกลับให้คนตัดสิน · a &lt;b&gt; &amp; c", m.Text)
	require.Equal(t, "web · โดย code-web", m.Blocks.BlockSet[2].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text)
	btn := m.Blocks.BlockSet[3].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement)
	require.Equal(t, "เปิดงาน", btn.Text.Text)
	require.Equal(t, taskURL, btn.URL)

	for _, lang := range []string{"", "en", "fr"} {
		n.Language = lang
		m = roundTrip(t, Card(n, "", cat))
		require.Equal(t, "↩️ Sent back for a person to decide · a &lt;b&gt; &amp; c", m.Text, "language %q", lang)
		require.Equal(t, "web · by code-web", m.Blocks.BlockSet[2].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text)
		require.Equal(t, "Open task", m.Blocks.BlockSet[3].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement).Text.Text)
	}
}

// A Thai structured brief: its task buttons say "เปิดงาน", the board button
// "เปิดกระดาน", the context "โดย"; the report's own words are untouched.
func TestThaiBriefCard(t *testing.T) {
	n := briefNotification()
	n.Language = "th"
	m := roundTrip(t, Card(n, "", mustCatalog()))
	var labels []string
	var context string
	for _, b := range m.Blocks.BlockSet {
		switch b := b.(type) {
		case *slack.SectionBlock:
			if b.Accessory != nil && b.Accessory.ButtonElement != nil {
				labels = append(labels, b.Accessory.ButtonElement.Text.Text)
			}
		case *slack.ActionBlock:
			for _, e := range b.Elements.ElementSet {
				labels = append(labels, e.(*slack.ButtonBlockElement).Text.Text)
			}
		case *slack.ContextBlock:
			context = b.ContextElements.Elements[0].(*slack.TextBlockObject).Text
		}
	}
	require.Equal(t, []string{"เปิดงาน", "เปิดงาน", "เปิดกระดาน"}, labels)
	require.Equal(t, "ops · โดย secretary", context)
	require.Equal(t, "📋 Morning brief", m.Blocks.BlockSet[0].(*slack.HeaderBlock).Text.Text, "the brief's own title")
	require.Contains(t, m.Text, "Good morning")
}
