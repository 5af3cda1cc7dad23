package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/slack-go/slack"

	"github.com/pactboard/pact/sdk/notifier"
)

// briefBlockBudget is where a brief stops adding sections, leaving room for
// the closing divider, context and board button under Slack's 50 blocks.
const briefBlockBudget = 46

// briefCard renders a structured daily brief as one card (docs/specs/behavior.md §8.7):
// header, greeting, then per section a divider and its title; an item about a
// task becomes its own line with an "Open task" button, other items are
// gathered into bullet lines. It never shows a task body: items are the
// report's own short lines.
func briefCard(n notifier.Notification, adminUI string, cat *catalog) *slack.WebhookMessage {
	icon, headline := kindStyle(cat, n.Language, n.Kind)
	title := strings.TrimSpace(n.Title)
	if title == "" {
		title = headline
	}
	base := boardBase(n, adminUI)
	b := n.Brief

	blocks := []slack.Block{header(icon + " " + title)}
	if g := strings.TrimSpace(b.Greeting); g != "" {
		blocks = append(blocks, section(clipMrkdwn(escape(g), maxSectionText)))
	}
	buttons := 0
	for _, s := range b.Sections {
		if len(blocks) >= briefBlockBudget {
			break
		}
		blocks = append(blocks, slack.NewDividerBlock())
		if t := strings.TrimSpace(s.Title); t != "" {
			blocks = append(blocks, section(clipMrkdwn("*"+escape(t)+"*", maxSectionText)))
		}
		var bullets []string
		flush := func() {
			if len(bullets) > 0 && len(blocks) < briefBlockBudget {
				blocks = append(blocks, section(clipMrkdwn(strings.Join(bullets, "\n"), maxSectionText)))
			}
			bullets = nil
		}
		for i, it := range s.Items {
			text := strings.TrimSpace(it.Text)
			if text == "" {
				continue
			}
			u := itemURL(it, base)
			if u == "" {
				bullets = append(bullets, "• "+escape(text))
				continue
			}
			flush()
			if len(blocks) >= briefBlockBudget {
				break
			}
			buttons++
			line := clipMrkdwn(fmt.Sprintf("%d. %s", i+1, escape(text)), maxSectionText)
			acc := slack.NewAccessory(button(fmt.Sprintf("open_task_%d", buttons), cat.text(n.Language, msgOpenTask, nil), u))
			blocks = append(blocks, slack.NewSectionBlock(
				slack.NewTextBlockObject(slack.MarkdownType, line, false, false), nil, acc))
		}
		flush()
	}
	blocks = append(blocks, slack.NewDividerBlock())
	if c := contextBlock(n, cat); c != nil {
		blocks = append(blocks, c)
	}
	if base != "" {
		blocks = append(blocks, slack.NewActionBlock("", button("open_board", cat.text(n.Language, msgOpenBoard, nil), base+"/tasks")))
	}
	fallback := strings.TrimSpace(b.Greeting)
	if fallback == "" {
		fallback = title
	}
	return &slack.WebhookMessage{
		Text:   clipMrkdwn(escape(icon+" "+fallback), maxFallback),
		Blocks: &slack.Blocks{BlockSet: blocks},
	}
}

// itemURL is the item's own task link, else one built from the Admin UI base
// and its task id, else "" (the item is then a bullet line).
func itemURL(it notifier.BriefItem, base string) string {
	if u := safeURL(it.URL); u != "" {
		return u
	}
	if it.TaskID != "" && base != "" {
		return safeURL(base + "/tasks/" + url.PathEscape(it.TaskID))
	}
	return ""
}

// boardBase finds the Admin UI's base URL: the operator's PACT_ADMIN_UI_URL,
// else the base of a task link the board put in the notification
// ("<base>/tasks/<id>"), else "". The board button and per-task buttons need
// it; without one the card simply has no buttons.
func boardBase(n notifier.Notification, adminUI string) string {
	if u := safeURL(strings.TrimRight(adminUI, "/")); u != "" {
		return strings.TrimRight(u, "/")
	}
	candidates := make([]string, 0, len(n.Links))
	for _, l := range n.Links {
		candidates = append(candidates, l.URL)
	}
	for _, s := range n.Brief.Sections {
		for _, it := range s.Items {
			candidates = append(candidates, it.URL)
		}
	}
	for _, c := range candidates {
		u := safeURL(c)
		if i := strings.LastIndex(u, "/tasks"); i > 0 && (len(u) == i+6 || u[i+6] == '/') {
			return u[:i]
		}
	}
	return ""
}
