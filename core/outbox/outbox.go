// Package outbox is where the board's events become notifications for
// people. Enqueue writes a row in the caller's transaction, so a refused call
// leaves none and a committed event always has its notification; delivery
// happens later, outside any board transaction (modules/notify), so a Slack
// or webhook outage never fails board work.
package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/redact"
)

// Kind says what a notification is about.
type Kind string

// The kinds of notification (docs/specs/behavior.md §8.6).
const (
	ApprovalNeeded  Kind = "approval_needed"  // a task waits for a person's approval; detail: the action
	Deferred        Kind = "deferred"         // an agent deferred a task to people; detail: the reason
	Question        Kind = "question"         // an agent asked a question (input_required)
	TaskClosed      Kind = "task_closed"      // a top-level task closed; detail: the status
	AwaitingSession Kind = "awaiting_session" // delegated to an agent that works only while a person has it open
	Brief           Kind = "brief"            // a report.brief task completed; detail: the brief
	Expiring        Kind = "expiring"         // a root mandate or token expires soon
	Expired         Kind = "expired"          // a root mandate or token expired
	Message         Kind = "message"          // an agent wrote to the people
	PactDecision    Kind = "pact_decision"    // an agent raised a decision in a pact; detail: the question
	PactUnread      Kind = "pact_unread"      // nobody else read a pact message in time; to the pact's owner
	PactStuck       Kind = "pact_stuck"       // an agent's pact webhook was switched off; to its person
)

// Kinds lists every kind.
func Kinds() []Kind {
	return []Kind{ApprovalNeeded, Deferred, Question, TaskClosed, AwaitingSession, Brief, Expiring, Expired, Message,
		PactDecision, PactUnread, PactStuck}
}

// Channel is the PostgreSQL notification channel told of every new row, at
// commit, so delivery workers wake without polling.
const Channel = "pact_outbox"

// Notification is what Enqueue writes.
type Notification struct {
	Kind      Kind
	ProjectID string // required: the notification's organization is the project's
	TaskID    string // optional
	AgentID   string // optional
	// HumanID, when set, is the one person the notification is for (the
	// bell); empty means the organization's people.
	HumanID string
	// DecisionID, for a pact decision's notice, is the decision: its
	// people's "Waiting on you" holds it while it is unanswered.
	DecisionID string
	Title      string
	// Detail is cut to its first non-blank line, except for briefs, which
	// keep what BriefDetail made of the result.
	Detail string
	// DetailIn, when set, is a detail the board wrote itself, in every
	// language it speaks (language tag → text, core/i18n): the enqueueing
	// statement keeps the one of the organization's language (orgs.language),
	// or of the person's (humans.language) when HumanID names one who chose
	// a language, else English, else Detail. An agent's own words go in
	// Detail.
	DetailIn map[string]string
}

// Limits of the stored text.
const (
	MaxTitle  = 200
	MaxDetail = 300
	MaxBrief  = 2800
)

// Enqueue writes n into the outbox inside tx and returns its id. Title and
// detail are redacted, their whitespace squeezed and cut to their limits.
func Enqueue(ctx context.Context, tx bun.IDB, n Notification) (int64, error) {
	title := clip(squeeze(redact.Text(n.Title)), MaxTitle)
	detail := n.Detail
	if n.Kind == Brief {
		detail = clip(strings.TrimSpace(redact.Text(detail)), MaxBrief)
	} else {
		detail = clip(squeeze(redact.Text(firstLine(detail))), MaxDetail)
	}
	// The details in every language; without DetailIn an empty object,
	// where every language looks up NULL, so Detail is kept.
	texts := map[string]string{}
	for lang, d := range n.DetailIn {
		texts[lang] = clip(squeeze(redact.Text(firstLine(d))), MaxDetail)
	}
	in, err := json.Marshal(texts)
	if err != nil {
		return 0, fmt.Errorf("outbox.Enqueue: %w", err)
	}
	address, err := addressSQL(n.Kind)
	if err != nil {
		return 0, err
	}
	// One statement writes the notification and its inbox rows, so no path
	// enqueues a notice its people are not told of.
	var id int64
	err = tx.NewRaw(`WITH n AS (INSERT INTO notifications (org_id, kind, project_id, task_id, agent_id, human_id, decision_id, title, detail)
		SELECT p.org_id, ?, p.id, ?::uuid, ?, ?, ?::uuid, ?,
		       nullif(coalesce(?::jsonb ->> coalesce(h.language, o.language), ?::jsonb ->> 'en', ?), '')
		FROM projects p JOIN orgs o ON o.id = p.org_id
		LEFT JOIN humans h ON h.id = ? AND h.org_id = p.org_id
		WHERE p.id = ? RETURNING *),
		i AS (INSERT INTO inbox (notification_id, human_id, org_id)
		SELECT n.id, h.id, h.org_id FROM n JOIN humans h ON `+address+`)
		SELECT id FROM n`,
		n.Kind, nullable(n.TaskID), nullable(n.AgentID), nullable(n.HumanID), nullable(n.DecisionID), title, string(in), string(in),
		nullable(detail), nullable(n.HumanID), n.ProjectID).Scan(ctx, &id)
	if err != nil {
		return 0, fmt.Errorf("outbox: enqueue %s for project %s: %w", n.Kind, n.ProjectID, err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_notify(?, ?)`, Channel, fmt.Sprint(id)); err != nil {
		return 0, fmt.Errorf("outbox.Enqueue: %w", err)
	}
	return id, nil
}

// firstLine is the first line of s that is not blank.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// squeeze collapses runs of whitespace into one space and trims the ends.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to max characters, ending with "…" when it cut.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
