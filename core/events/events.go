// Package events wakes waiting agents when a commit concerns them, in this
// process and in every other board process on the same database.
//
// A change that may interest a waiter (a task became claimable, a message
// arrived) calls [Publish] inside the transaction that makes it; PostgreSQL
// delivers the notification at commit, and never for a transaction that
// rolled back. Each process runs one [Hub], which holds one dedicated
// connection with LISTEN pact_events and fans each notification out to the
// in-process subscribers whose match accepts it. Nothing polls the database
// per waiter.
//
// # The waiter's contract
//
// A wake is only a hint that the database may have changed; the database is
// the truth. A notification can be missed (the listener connection dropped,
// the process started after the commit), so a waiter never trusts the
// signal alone and always follows this order:
//
//  1. sub := hub.Subscribe(match); defer sub.Close()
//  2. check the database from the caller's cursor; if there is something,
//     return it;
//  3. wait for sub.C(), the deadline or ctx;
//  4. on a wake, go back to 2; on the deadline, return nothing.
//
// Subscribing before the first check closes the gap between the check and
// the wait: a commit after step 1 wakes the subscriber even if it lands
// before step 3. Whenever the hub (re)connects its listener it wakes every
// subscriber ("resync"), so whatever was committed while it was not
// listening is picked up by the re-check in step 2. C() coalesces: many
// notifications before the waiter looks are one wake, and one re-check
// covers them all.
package events

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/uptrace/bun"
)

// Channel is the PostgreSQL notification channel of the board.
const Channel = "pact_events"

// Kinds of event.
const (
	// KindTask: a task became claimable or changed hands (posted, delegated,
	// released, resumed by a person).
	KindTask = "task"
	// KindMessage: a message was posted; AgentID is its recipient.
	KindMessage = "message"
	// KindPact: something was appended to a pact's feed (modules/pacts);
	// its readers (the pact stream, webhook delivery) re-check the feed.
	// PactID names the pact, so only the streams of agents seated in it
	// wake.
	KindPact = "pact"
	// KindStop: an agent's or a person's standing ended (banned, paused,
	// replaced, a mandate revoked, removed from a project, disabled, signed
	// out, a kill switch thrown). Triggers raise it from the rows
	// (migration 027) and sign-out from its transaction; every channel that
	// pushes content re-checks its principal on it (StopsAgent,
	// StopsPerson). AgentID or HumanID names whom it concerns; OrgID alone
	// means everyone in the organization; no id at all, everyone.
	KindStop = "stop"
	// KindTaskState: a task's status, result or deferral changed; TaskID
	// names it. A trigger raises it from the row (migration 038), for the
	// A2A streams that follow a task.
	KindTaskState = "task_state"
)

// maxPayload is PostgreSQL's limit on a notification payload, less a margin.
const maxPayload = 7900

// Event says what a commit concerns. It carries ids only: waiters read the
// rows themselves.
type Event struct {
	// Kind is KindTask, KindMessage, KindPact, KindStop or KindTaskState.
	Kind string `json:"kind"`
	// OrgID and ProjectID locate the change.
	OrgID     string `json:"org_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	// TaskID is the task concerned, if any.
	TaskID string `json:"task_id,omitempty"`
	// AgentID is the agent concerned (a message's recipient, a task's
	// delegate); empty means anyone in the project.
	AgentID string `json:"agent_id,omitempty"`
	// PactID is the pact whose feed a KindPact appended to; AgentID is
	// then the agent that wrote it, if an agent did (its own seats may have
	// changed).
	PactID string `json:"pact_id,omitempty"`
	// HumanID is the person concerned by a KindStop.
	HumanID string `json:"human_id,omitempty"`
}

// StopsAgent reports whether ev is a stop that may end the standing of
// agent, of organization org: one naming it, its whole organization, or
// the whole board. A channel re-checks the agent on it; the database
// decides.
func (ev Event) StopsAgent(org, agent string) bool {
	if ev.Kind != KindStop {
		return false
	}
	if ev.AgentID == "" && ev.HumanID == "" {
		return ev.OrgID == "" || ev.OrgID == org
	}
	return ev.AgentID == agent
}

// StopsPerson is StopsAgent for a person's channels.
func (ev Event) StopsPerson(org, human string) bool {
	if ev.Kind != KindStop {
		return false
	}
	if ev.AgentID == "" && ev.HumanID == "" {
		return ev.OrgID == "" || ev.OrgID == org
	}
	return ev.HumanID == human
}

// Publish queues ev on tx's transaction: it is delivered to every listening
// hub when the transaction commits, and dropped if it rolls back. Called
// outside a transaction, it is delivered at once.
func Publish(ctx context.Context, tx bun.IDB, ev Event) error {
	payload, err := Payload(ev)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `SELECT pg_notify(?, ?)`, Channel, payload)
	return err
}

// Payload is the notification Publish sends for ev on Channel, for a caller
// that folds pg_notify(Channel, payload) into a statement of its own to
// save a round trip.
func Payload(ev Event) (string, error) {
	if ev.Kind == "" {
		return "", fmt.Errorf("events: an event needs a kind")
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return "", err
	}
	if len(payload) > maxPayload {
		return "", fmt.Errorf("events: payload of %d bytes is over the notification limit", len(payload))
	}
	return string(payload), nil
}
