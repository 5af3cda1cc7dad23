package main

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// channelMethod is the notification Claude Code reads from a channel.
const channelMethod = "notifications/claude/channel"

// contentLimit is how many characters of an event's text a notification
// carries; read_with reads the rest.
const contentLimit = 400

// channelParams are a notification's params: the text, and meta whose keys
// are identifiers and whose values are strings (Claude Code shows them as
// attributes of the event's <channel> tag). No key is "source": the tag's
// source attribute is the server's name, which Claude Code sets itself.
type channelParams struct {
	Content string            `json:"content"`
	Meta    map[string]string `json:"meta"`
}

// pactEvent is one event of GET /pacts/stream (docs/pacts.md, "Delivery
// without polling").
type pactEvent struct {
	ID      int64   `json:"id"`
	PactID  string  `json:"pact_id"`
	Pact    string  `json:"pact"`
	Kind    string  `json:"kind"`
	Ref     string  `json:"ref"`
	Seat    *string `json:"seat"`
	Actor   string  `json:"actor"`
	At      string  `json:"at"`
	Excerpt string  `json:"excerpt"`
}

// pactParams is the notification of a pact event: its first 400
// characters, and the get_pact call that reads it whole.
func pactParams(ev pactEvent, mandate string) channelParams {
	text := ev.Excerpt
	if text == "" {
		text = fmt.Sprintf("%s %s in pact %s by %s", ev.Kind, ev.Ref, ev.Pact, ev.Actor)
	}
	args, _ := json.Marshal(struct {
		PactID    string `json:"pact_id"`
		MandateID string `json:"mandate_id"`
		Since     int64  `json:"since"`
	}{ev.PactID, mandate, ev.ID - 1})
	meta := map[string]string{"about": "pact", "pact_id": ev.PactID, "pact": ev.Pact, "kind": ev.Kind,
		"message_no": ev.Ref, "event_id": strconv.FormatInt(ev.ID, 10), "from": ev.Actor, "at": ev.At,
		"read_with": "get_pact " + string(args)}
	if ev.Seat != nil {
		meta["seat"] = *ev.Seat
	}
	return channelParams{Content: first(text, contentLimit), Meta: clean(meta)}
}

// boardTask is a task as pact_events returns it.
type boardTask struct {
	ID                 string  `json:"id"`
	Seq                int64   `json:"seq"`
	Title              string  `json:"title"`
	Body               string  `json:"body"`
	ProjectID          string  `json:"project_id"`
	CreatedBy          string  `json:"created_by"`
	DelegateTo         *string `json:"delegate_to"`
	DelegatedMandateID *string `json:"delegated_mandate_id"`
	UpdatedAt          string  `json:"updated_at"`
}

// boardMessage is a message on a task as pact_events returns it.
type boardMessage struct {
	ID     int64  `json:"id"`
	TaskID string `json:"task_id"`
	From   string `json:"from"`
	Body   string `json:"body"`
	At     string `json:"at"`
	Title  string `json:"task_title"`
}

// taskParams is the notification of a task delegated or offered to the
// agent.
func taskParams(t boardTask, mandate string, offered bool) channelParams {
	args, _ := json.Marshal(struct {
		Filter    string `json:"filter"`
		ProjectID string `json:"project_id"`
		MandateID string `json:"mandate_id"`
	}{"open", t.ProjectID, mandate})
	meta := map[string]string{"about": "task", "task_id": t.ID, "title": t.Title, "project_id": t.ProjectID,
		"from": t.CreatedBy, "at": t.UpdatedAt, "read_with": "pact_list " + string(args)}
	if offered {
		meta["offered"] = "true"
	}
	if t.DelegatedMandateID != nil {
		meta["delegated_mandate_id"] = *t.DelegatedMandateID
	}
	return channelParams{Content: first(t.Title+"\n\n"+t.Body, contentLimit), Meta: clean(meta)}
}

// messageParams is the notification of a message to the agent on a task.
func messageParams(m boardMessage, mandate string) channelParams {
	args, _ := json.Marshal(struct {
		TaskID    string `json:"task_id"`
		MandateID string `json:"mandate_id"`
	}{m.TaskID, mandate})
	meta := map[string]string{"about": "task_message", "task_id": m.TaskID, "title": m.Title,
		"message_no": strconv.FormatInt(m.ID, 10), "from": m.From, "at": m.At, "read_with": "pact_message " + string(args)}
	return channelParams{Content: first(m.Body, contentLimit), Meta: clean(meta)}
}

// first is s's first n characters.
func first(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// clean drops empty values: meta carries only what is known.
func clean(meta map[string]string) map[string]string {
	for k, v := range meta {
		if v == "" {
			delete(meta, k)
		}
	}
	return meta
}
