package notify

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// Labels of the links notifications carry; the Slack plugin turns them into
// buttons.
const (
	OpenTaskLabel  = "Open task"
	OpenBoardLabel = "Open the board"
)

// row is a claimed outbox row.
type row = outbox.Claimed

// message builds what every notifier receives for r: the row's text as
// core/outbox stored it (already redacted and short), its ids, an "Open
// task" link when the Admin UI URL is known and, for a brief whose detail
// is a structured report, the parsed Brief (its Detail then becomes a plain
// text rendering, for notifiers that do not render sections).
func (s *Service) message(r *row) notifier.Notification {
	n := notifier.Notification{
		ID:             strconv.FormatInt(r.ID, 10),
		IdempotencyKey: r.Key,
		Kind:           string(r.Kind),
		Title:          r.Title,
		Detail:         deref(r.Detail),
		OrgID:          r.OrgID,
		ProjectID:      r.ProjectID,
		TaskID:         deref(r.TaskID),
		AgentID:        deref(r.AgentID),
		HumanID:        deref(r.HumanID),
		CreatedAt:      r.CreatedAt.UTC(),
	}
	ui := s.opts.AdminUIURL
	if ui != "" && n.TaskID != "" {
		n.Links = append(n.Links, notifier.Link{Label: OpenTaskLabel, URL: ui + "/tasks/" + n.TaskID})
	}
	if r.Kind == outbox.Brief {
		if b := parseBrief(n.Detail, ui); b != nil {
			n.Brief = b
			n.Detail = briefText(b)
		}
		if ui != "" {
			n.Links = append(n.Links, notifier.Link{Label: OpenBoardLabel, URL: ui + "/tasks"})
		}
	}
	return n
}

// parseBrief reads a brief's detail as the structured report the board
// stores ({"greeting", "sections": [{"title", "items": [{"text",
// "task_id"}]}]}); nil when it is plain text or has no section.
func parseBrief(detail, ui string) *notifier.Brief {
	if !strings.HasPrefix(strings.TrimSpace(detail), "{") {
		return nil
	}
	var rep struct {
		Greeting string `json:"greeting"`
		Sections []struct {
			Title string `json:"title"`
			Items []struct {
				Text   string `json:"text"`
				TaskID string `json:"task_id"`
			} `json:"items"`
		} `json:"sections"`
	}
	if json.Unmarshal([]byte(detail), &rep) != nil || len(rep.Sections) == 0 {
		return nil
	}
	b := &notifier.Brief{Greeting: rep.Greeting}
	for _, sec := range rep.Sections {
		bs := notifier.BriefSection{Title: sec.Title}
		for _, it := range sec.Items {
			item := notifier.BriefItem{Text: it.Text}
			if _, err := uuid.Parse(it.TaskID); err == nil {
				item.TaskID = it.TaskID
				if ui != "" {
					item.URL = ui + "/tasks/" + it.TaskID
				}
			}
			bs.Items = append(bs.Items, item)
		}
		b.Sections = append(b.Sections, bs)
	}
	return b
}

// briefText renders b as lines of text: the greeting, then each section's
// title and its items as bullets, cut to the outbox's brief limit.
func briefText(b *notifier.Brief) string {
	var lines []string
	if g := strings.TrimSpace(b.Greeting); g != "" {
		lines = append(lines, g)
	}
	for _, sec := range b.Sections {
		lines = append(lines, sec.Title)
		for _, it := range sec.Items {
			lines = append(lines, "• "+it.Text)
		}
	}
	return clip(strings.Join(lines, "\n"), outbox.MaxBrief)
}

// errorText is what last_error and logs keep of a failed delivery: the
// destination's label and the error's message, without the destination's
// URL (a Slack webhook URL is a secret) and redacted, cut to 500
// characters. The receiver's own error text stays in it.
func errorText(label, url string, err error) string {
	msg := err.Error()
	if e, ok := errs.As(err); ok && e.Code != errs.Internal {
		msg = string(e.Code) + ": " + e.Message
	}
	if url != "" {
		msg = strings.ReplaceAll(msg, url, "<destination URL>")
	}
	return clip(label+": "+redact.Text(msg), 500)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
