package board

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/pactboard/pact/core/redact"
)

// cleanReport keeps what a brief card can show of a structured report
// ({"greeting", "sections": [{"title", "items": [{"text", "task_id"}]}]}):
// at most 6 titled sections of at most 10 items, texts redacted and cut.
// It returns the cleaned report as JSON, or "" when no section survives.
func cleanReport(raw json.RawMessage) string {
	var rep struct {
		Greeting string `json:"greeting"`
		Sections []struct {
			Title string            `json:"title"`
			Items []json.RawMessage `json:"items"`
		} `json:"sections"`
	}
	if json.Unmarshal(raw, &rep) != nil {
		return ""
	}
	type item struct {
		Text   string `json:"text"`
		TaskID string `json:"task_id,omitempty"`
	}
	type section struct {
		Title string `json:"title"`
		Items []item `json:"items"`
	}
	out := struct {
		Greeting string    `json:"greeting,omitempty"`
		Sections []section `json:"sections"`
	}{Greeting: cut(rep.Greeting, 300)}
	for _, s := range rep.Sections {
		title := cut(s.Title, 80)
		if title == "" || len(out.Sections) == 6 {
			continue
		}
		sec := section{Title: title, Items: []item{}}
		for _, raw := range s.Items {
			if len(sec.Items) == 10 {
				break
			}
			var it item
			var text string
			if json.Unmarshal(raw, &text) == nil {
				it.Text = text
			} else if json.Unmarshal(raw, &it) != nil {
				continue
			}
			if it.Text = cut(it.Text, 600); it.Text == "" {
				continue
			}
			if _, err := uuid.Parse(it.TaskID); err != nil {
				it.TaskID = ""
			}
			sec.Items = append(sec.Items, it)
		}
		out.Sections = append(out.Sections, sec)
	}
	if len(out.Sections) == 0 {
		return ""
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// cut redacts s, squeezes its whitespace and keeps at most n characters.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(redact.Text(s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
