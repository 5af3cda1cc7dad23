package main

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/pactboard/pact/sdk/notifier"
)

// payload is the JSON body of every delivery, in the envelope Standard
// Webhooks recommends ({type, timestamp, data}) so receivers can route on
// type without reading data:
//
//	{
//	  "type": "notification.approval_needed",
//	  "timestamp": "2026-11-29T22:00:00Z",
//	  "data": {
//	    "id": "42", "idempotency_key": "…", "kind": "approval_needed",
//	    "title": "…", "detail": "…",
//	    "org_id": "…", "project_id": "…", "task_id": "…", "agent_id": "…", "human_id": "…",
//	    "links": [{"label": "Open task", "url": "https://admin.example.com/tasks/…"}],
//	    "brief": {"greeting": "…", "sections": [{"title": "…", "items": [{"text": "…", "task_id": "…", "url": "…"}]}]},
//	    "created_at": "2026-11-29T22:00:00Z",
//	    "language": "th",
//	    "event": {…}
//	  }
//	}
//
// event is notifier.Notification.Data as the board sent it, a JSON object
// for a receiver that acts on it: for kind pact_event, the pact event an
// agent's webhook delivers (docs/pacts.md, "Delivery without polling").
// Data that is not a JSON object is left out. human_id is the one person
// the notification is for (notifier.Notification.HumanID: a pact's owner
// told of an unread message, an agent's person told its webhook was
// switched off), and language is then theirs; without it the notification
// is for the organization's people. Empty fields are left out. timestamp is
// when the board created the notification; the webhook-timestamp header is
// when this attempt was sent.
type payload struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      data      `json:"data"`
}

type data struct {
	ID             string    `json:"id,omitempty"`
	IdempotencyKey string    `json:"idempotency_key"`
	Kind           string    `json:"kind"`
	Title          string    `json:"title"`
	Detail         string    `json:"detail,omitempty"`
	OrgID          string    `json:"org_id,omitempty"`
	ProjectID      string    `json:"project_id,omitempty"`
	TaskID         string    `json:"task_id,omitempty"`
	AgentID        string    `json:"agent_id,omitempty"`
	HumanID        string    `json:"human_id,omitempty"`
	Links          []link    `json:"links,omitempty"`
	Brief          *brief    `json:"brief,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	// Language is the BCP 47 tag of the language the organization's people
	// read (notifier.Notification.Language); a receiver that writes its
	// own words for them uses it. Left out when the board sent none.
	Language string `json:"language,omitempty"`
	// Event is the board's Data, passed on as it is.
	Event json.RawMessage `json:"event,omitempty"`
}

type link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

type brief struct {
	Greeting string    `json:"greeting,omitempty"`
	Sections []section `json:"sections"`
}

type section struct {
	Title string `json:"title"`
	Items []item `json:"items"`
}

type item struct {
	Text   string `json:"text"`
	TaskID string `json:"task_id,omitempty"`
	URL    string `json:"url,omitempty"`
}

// newPayload converts n; id is the webhook-id the delivery carries.
func newPayload(n notifier.Notification, id string, now time.Time) payload {
	created := n.CreatedAt.UTC()
	if n.CreatedAt.IsZero() {
		created = now.UTC()
	}
	d := data{
		ID: n.ID, IdempotencyKey: id, Kind: n.Kind, Title: n.Title, Detail: n.Detail,
		OrgID: n.OrgID, ProjectID: n.ProjectID, TaskID: n.TaskID, AgentID: n.AgentID, CreatedAt: created,
		HumanID: n.HumanID, Language: n.Language,
	}
	if raw := bytes.TrimSpace(n.Data); len(raw) > 0 && raw[0] == '{' && json.Valid(raw) {
		d.Event = raw
	}
	for _, l := range n.Links {
		d.Links = append(d.Links, link{Label: l.Label, URL: l.URL})
	}
	if n.Brief != nil {
		b := &brief{Greeting: n.Brief.Greeting, Sections: []section{}}
		for _, s := range n.Brief.Sections {
			sec := section{Title: s.Title, Items: []item{}}
			for _, it := range s.Items {
				sec.Items = append(sec.Items, item{Text: it.Text, TaskID: it.TaskID, URL: it.URL})
			}
			b.Sections = append(b.Sections, sec)
		}
		d.Brief = b
	}
	return payload{Type: "notification." + n.Kind, Timestamp: created, Data: d}
}
