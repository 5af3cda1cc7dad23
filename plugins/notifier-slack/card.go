package main

import (
	"net/url"
	"strings"

	"github.com/slack-go/slack"

	"github.com/pactboard/pact/sdk/notifier"
)

// Labels of the links the board puts in a notification (modules/notify):
// they name what a link is, whatever the language, and are matched, never
// shown. Button texts come from the catalog. An incoming webhook cannot
// receive clicks, so buttons only link to the Admin UI, where approving
// happens.
const (
	taskLinkLabel  = "Open task"
	boardLinkLabel = "Open the board"
)

// kindStyle returns the icon and headline of a notification kind
// (docs/specs/behavior.md §8.7) in lang. An unknown kind shows itself, so a
// newer board's kind still reaches people before this plugin learns its
// name.
func kindStyle(cat *catalog, lang, kind string) (icon, headline string) {
	var id msgID
	switch kind {
	case "approval_needed":
		icon, id = "🟡", msgApprovalNeeded
	case "deferred":
		icon, id = "↩️", msgDeferred
	case "question":
		icon, id = "❓", msgQuestion
	case "task_closed":
		icon, id = "✅", msgTaskClosed
	case "awaiting_session":
		icon, id = "💤", msgAwaitingSession
	case "brief":
		icon, id = "📋", msgBrief
	case "expiring":
		icon, id = "⏳", msgExpiring
	case "expired":
		icon, id = "⛔", msgExpired
	case "message":
		icon, id = "💬", msgMessage
	case "pact_decision":
		icon, id = "⚖️", msgPactDecision
	case "pact_unread":
		icon, id = "📭", msgPactUnread
	case "pact_stuck":
		icon, id = "🚧", msgPactStuck
	case "":
		icon, id = "🔔", msgNoKind
	default:
		return "🔔", kind
	}
	return icon, cat.text(lang, id, nil)
}

// Card renders n as the message posted to an incoming webhook: the
// structured brief card when n is a brief with sections, else the standard
// card. adminUI is the Admin UI's base URL ("" when unknown); the card's own
// words are cat's, in n.Language. The text fallback is always set: it is
// what notifications and screen readers show.
func Card(n notifier.Notification, adminUI string, cat *catalog) *slack.WebhookMessage {
	var msg *slack.WebhookMessage
	if n.Kind == "brief" && n.Brief != nil && len(n.Brief.Sections) > 0 {
		msg = briefCard(n, adminUI, cat)
	} else {
		msg = standardCard(n, adminUI, cat)
	}
	if len(msg.Blocks.BlockSet) > maxBlocks {
		msg.Blocks.BlockSet = msg.Blocks.BlockSet[:maxBlocks]
	}
	return msg
}

// standardCard is header, the person it is for when it is for one
// (Notification.HumanID), title (+ first detail line), context, and an
// "Open task" button when the task's Admin UI page is known: from the
// notification's links, else from adminUI and the task id.
func standardCard(n notifier.Notification, adminUI string, cat *catalog) *slack.WebhookMessage {
	icon, headline := kindStyle(cat, n.Language, n.Kind)
	title := strings.TrimSpace(n.Title)
	if title == "" {
		title = headline
	}
	taskURL := taskLink(n.Links)
	if taskURL == "" && n.TaskID != "" && adminUI != "" {
		taskURL = safeURL(strings.TrimRight(adminUI, "/") + "/tasks/" + url.PathEscape(n.TaskID))
	}

	head := "*" + escape(clip(title, maxTitle)) + "*"
	if taskURL != "" && len(taskURL) < maxLinkedURL {
		// Short enough that clipping the section can only cut the detail,
		// never the <url|title> syntax.
		head = "*" + mrkdwnLink(taskURL, escape(clip(title, maxTitle))) + "*"
	}
	blocks := []slack.Block{header(icon + " " + headline)}
	if n.HumanID != "" {
		// Sent to the organization's channel, so the card says whose it is.
		text := cat.text(n.Language, msgFor, map[string]any{"Human": escape(n.HumanID)})
		blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType,
			clipMrkdwn(text, maxContext), false, false)))
	}
	if n.Kind == "brief" {
		// A brief's detail is the report itself, so it gets its own section.
		blocks = append(blocks, section(clipMrkdwn(head, maxSectionText)))
		if d := strings.TrimSpace(n.Detail); d != "" {
			blocks = append(blocks, section(clipMrkdwn(escape(d), maxSectionText)))
		}
	} else {
		text := head
		if d := firstLine(n.Detail); d != "" {
			text += "\n" + escape(d)
		}
		blocks = append(blocks, section(clipMrkdwn(text, maxSectionText)))
	}
	if c := contextBlock(n, cat); c != nil {
		blocks = append(blocks, c)
	}
	if taskURL != "" {
		blocks = append(blocks, slack.NewActionBlock("", button("open_task", cat.text(n.Language, msgOpenTask, nil), taskURL)))
	}
	return &slack.WebhookMessage{
		Text:   clipMrkdwn(escape(icon+" "+headline+" · "+title), maxFallback),
		Blocks: &slack.Blocks{BlockSet: blocks},
	}
}

// taskLink picks the URL of the task's "Open task" link, else the first
// usable link, else "".
func taskLink(links []notifier.Link) string {
	for _, l := range links {
		if strings.EqualFold(l.Label, taskLinkLabel) {
			if u := safeURL(l.URL); u != "" {
				return u
			}
		}
	}
	for _, l := range links {
		if strings.EqualFold(l.Label, boardLinkLabel) {
			continue
		}
		if u := safeURL(l.URL); u != "" {
			return u
		}
	}
	return ""
}

// contextBlock shows "<project> · by <agent>" (in n.Language), or nil when
// the notification names neither.
func contextBlock(n notifier.Notification, cat *catalog) slack.Block {
	var parts []string
	if n.ProjectID != "" {
		parts = append(parts, escape(n.ProjectID))
	}
	if n.AgentID != "" {
		parts = append(parts, cat.text(n.Language, msgBy, map[string]any{"Agent": escape(n.AgentID)}))
	}
	if len(parts) == 0 {
		return nil
	}
	text := clipMrkdwn(strings.Join(parts, " · "), maxContext)
	return slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, text, false, false))
}

func header(text string) slack.Block {
	return slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, clip(text, maxHeader), true, false))
}

func section(mrkdwn string) *slack.SectionBlock {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, mrkdwn, false, false), nil, nil)
}

// button links to u. Slack refuses a message whose action_ids repeat, so
// callers pass a distinct actionID per button.
func button(actionID, label, u string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(actionID, "", slack.NewTextBlockObject(slack.PlainTextType, label, false, false)).WithURL(u)
}
