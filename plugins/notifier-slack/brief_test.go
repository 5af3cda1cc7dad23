package main

import (
	"fmt"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/notifier"
)

func briefNotification() notifier.Notification {
	return notifier.Notification{
		Kind: "brief", Title: "Morning brief", ProjectID: "ops", AgentID: "secretary",
		Detail: "THE WHOLE REPORT TEXT",
		Links:  []notifier.Link{{Label: "Open task", URL: "https://admin.example.com/tasks/b1"}},
		Brief: &notifier.Brief{
			Greeting: "Good morning <team>",
			Sections: []notifier.BriefSection{
				{Title: "Needs you", Items: []notifier.BriefItem{
					{Text: "Approve the deploy", TaskID: "t1", URL: "https://admin.example.com/tasks/t1"},
					{Text: "Budget is at 80%"},
					{Text: "Answer the pricing question", TaskID: "t2"},
					{Text: "A & B"},
					{Text: "C"},
				}},
				{Title: "Done", Items: []notifier.BriefItem{{Text: "Shipped v2"}}},
			},
		},
	}
}

func TestBriefCard(t *testing.T) {
	m := roundTrip(t, Card(briefNotification(), "", mustCatalog()))
	require.Equal(t, []string{
		"header", "section", // greeting
		"divider", "section", "section", "section", "section", "section", // Needs you: title, t1, bullets, t2, bullets
		"divider", "section", "section", // Done: title, bullets
		"divider", "context", "actions",
	}, blockTypes(m))
	bs := m.Blocks.BlockSet
	require.Equal(t, "📋 Morning brief", bs[0].(*slack.HeaderBlock).Text.Text)
	require.Equal(t, "Good morning &lt;team&gt;", sectionText(t, bs[1]))
	require.Equal(t, "*Needs you*", sectionText(t, bs[3]))

	require.Equal(t, "1. Approve the deploy", sectionText(t, bs[4]))
	b1 := bs[4].(*slack.SectionBlock).Accessory.ButtonElement
	require.Equal(t, "Open task", b1.Text.Text)
	require.Equal(t, "https://admin.example.com/tasks/t1", b1.URL)

	require.Equal(t, "• Budget is at 80%", sectionText(t, bs[5]))
	require.Equal(t, "3. Answer the pricing question", sectionText(t, bs[6]))
	b2 := bs[6].(*slack.SectionBlock).Accessory.ButtonElement
	require.Equal(t, "https://admin.example.com/tasks/t2", b2.URL, "built from the Admin UI base the notification's link shows")
	require.NotEqual(t, b1.ActionID, b2.ActionID, "Slack refuses repeated action ids")
	require.Equal(t, "• A &amp; B\n• C", sectionText(t, bs[7]))
	require.Equal(t, "• Shipped v2", sectionText(t, bs[10]))

	board := bs[13].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement)
	require.Equal(t, "Open the board", board.Text.Text)
	require.Equal(t, "https://admin.example.com/tasks", board.URL)
	require.Equal(t, "📋 Good morning &lt;team&gt;", m.Text)
	require.NotContains(t, fmt.Sprint(m), "THE WHOLE REPORT TEXT", "the structured card replaces the report text")
}

func TestBriefCardUsesAdminUIWhenNoLinks(t *testing.T) {
	n := briefNotification()
	n.Links = nil
	n.Brief.Sections[0].Items[0].URL = ""
	m := roundTrip(t, Card(n, "https://ui.example.com/", mustCatalog()))
	bs := m.Blocks.BlockSet
	require.Equal(t, "https://ui.example.com/tasks/t1", bs[4].(*slack.SectionBlock).Accessory.ButtonElement.URL)
	require.Equal(t, "https://ui.example.com/tasks", bs[len(bs)-1].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement).URL)
}

func TestBriefCardWithoutAnyURLHasNoButtons(t *testing.T) {
	n := briefNotification()
	n.Links = nil
	n.Brief.Sections[0].Items[0].URL = ""
	m := roundTrip(t, Card(n, "", mustCatalog()))
	for _, b := range m.Blocks.BlockSet {
		require.NotEqual(t, slack.MBTAction, b.BlockType())
		if s, ok := b.(*slack.SectionBlock); ok {
			require.Nil(t, s.Accessory)
		}
	}
	require.Equal(t, "• Approve the deploy\n• Budget is at 80%\n• Answer the pricing question\n• A &amp; B\n• C",
		sectionText(t, m.Blocks.BlockSet[4]), "task items without a link are bullets too")
}

func TestBriefCardStaysUnderFiftyBlocks(t *testing.T) {
	n := briefNotification()
	n.Brief.Sections = nil
	for s := range 6 {
		sec := notifier.BriefSection{Title: fmt.Sprintf("S%d", s)}
		for i := range 10 {
			sec.Items = append(sec.Items, notifier.BriefItem{Text: fmt.Sprintf("item %d", i), TaskID: fmt.Sprintf("t%d-%d", s, i)})
		}
		n.Brief.Sections = append(n.Brief.Sections, sec)
	}
	m := roundTrip(t, Card(n, "", mustCatalog()))
	require.LessOrEqual(t, len(m.Blocks.BlockSet), maxBlocks)
	types := blockTypes(m)
	require.Equal(t, []string{"divider", "context", "actions"}, types[len(types)-3:], "the closing blocks always fit")
}

func TestBriefWithoutSectionsIsAStandardCard(t *testing.T) {
	n := briefNotification()
	n.Brief = &notifier.Brief{Greeting: "hi"}
	m := roundTrip(t, Card(n, "", mustCatalog()))
	require.Equal(t, []string{"header", "section", "section", "context", "actions"}, blockTypes(m))
	require.Equal(t, "THE WHOLE REPORT TEXT", sectionText(t, m.Blocks.BlockSet[2]))
}
