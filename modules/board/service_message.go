package board

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// TaskMessage is a message on a task's thread: from an agent or a person,
// to an agent or (ToAgent nil) the people.
type TaskMessage struct {
	ID        int64      `bun:"id" json:"id"`
	TaskID    string     `bun:"task_id" json:"task_id"`
	TaskTitle string     `bun:"task_title" json:"task_title"`
	FromAgent *string    `bun:"from_agent" json:"from_agent"`
	FromHuman *string    `bun:"from_human" json:"from_human"`
	ToAgent   *string    `bun:"to_agent" json:"to_agent"`
	Body      string     `bun:"body" json:"body"`
	CreatedAt time.Time  `bun:"created_at" json:"created_at"`
	ReadAt    *time.Time `bun:"read_at" json:"read_at"`
}

// Agents may send each other this many messages per task; then a person decides.
const messageCap = 10

// MaxMessage is the longest message body, in characters.
const MaxMessage = 8000

// Agents may send the people this many messages per task that no person
// has answered yet (a person's message on the task answers them all).
const peopleCap = 5

// Sent is a message Message wrote.
type Sent struct {
	ID int64
	// To is the recipient agent, or "" for the people.
	To string
	// Body is the message as stored: trimmed and redacted.
	Body string
}

// thread loads task id for by to read or write its thread: a task by may
// see (taskFor); for an agent, not of a production project if it is a
// Runner, and its chain must cover task.read on the project. The project
// is nil for a person.
func (s *Service) thread(ctx context.Context, tx bun.IDB, by Actor, id string) (*Task, *project, error) {
	t, p, err := s.taskFor(ctx, tx, by, id)
	if err != nil || !by.IsAgent() {
		return t, p, err
	}
	if err := refuseRunnerOnProduction(by.Caller, p); err != nil {
		return nil, nil, err
	}
	if err := requireScope(by.Chain, mandate.BoardScope("task.read", p.ID)); err != nil {
		return nil, nil, err
	}
	return t, p, nil
}

// Message writes by's message on the thread of task taskID
// (docs/specs/behavior.md §8.2): an agent's on a task it may see (thread)
// of a project that is not frozen, which is its heartbeat on the task; a
// person's on a task of their organization. The task must be open. The
// body is redacted and 1-8000 characters. The recipient is to, else the
// other side of the task (recipient, personRecipient); agents may send
// each other messageCap messages per task, and the people peopleCap
// unanswered ones. A message to an agent wakes it; one to the people is a
// notification.
func (s *Service) Message(ctx context.Context, tx bun.IDB, by Actor, taskID, body string, to *string) (Sent, error) {
	t, p, err := s.thread(ctx, tx, by, taskID)
	if err != nil {
		return Sent{}, err
	}
	if by.IsAgent() {
		if err := refuseFrozen(p); err != nil {
			return Sent{}, err
		}
	}
	msg, err := s.message(ctx, tx, by, t, body, to)
	if err != nil || !by.IsAgent() {
		return msg, err
	}
	// Any successful call naming the task is its assignee's heartbeat
	// (docs/specs/behavior.md §6.0 step 6, §7.3).
	return msg, s.st.heartbeat(ctx, tx, t.ID, by.AgentID)
}

// message is Message on task t.
func (s *Service) message(ctx context.Context, tx bun.IDB, by Actor, t *Task, body string, to *string) (Sent, error) {
	if terminal[t.Status] {
		hint := "its thread is closed"
		if by.IsAgent() {
			hint = "post a new task instead"
		}
		return Sent{}, errs.E(errs.InvalidRequest, "task %s is %s; %s", t.ID, t.Status, hint)
	}
	text := redact.Text(strings.TrimSpace(body))
	if text == "" {
		return Sent{}, errs.E(errs.InvalidRequest, "a message needs a body")
	}
	if n := len([]rune(text)); n > MaxMessage {
		if by.IsAgent() {
			return Sent{}, errs.E(errs.InvalidRequest, "a message is at most %d characters (this one has %d); write longer text in a note (pact_note)", MaxMessage, n)
		}
		return Sent{}, errs.E(errs.InvalidRequest, "a message is at most %d characters (this one has %d)", MaxMessage, n)
	}
	var recipient string
	var err error
	if by.IsAgent() {
		recipient, err = s.recipient(ctx, tx, by.AgentID, t, to)
	} else {
		recipient, err = s.personRecipient(ctx, tx, t, to)
	}
	if err != nil {
		return Sent{}, err
	}
	switch {
	case by.IsAgent() && recipient != "":
		if err := s.checkCap(ctx, tx, t); err != nil {
			return Sent{}, err
		}
	case by.IsAgent():
		if err := s.checkPeopleCap(ctx, tx, t); err != nil {
			return Sent{}, err
		}
	}
	id, err := s.st.insertMessage(ctx, tx, by.OrgID, t.ID, nullable(by.AgentID), nullable(by.PersonID), nullable(recipient), text)
	if err != nil {
		return Sent{}, fmt.Errorf("message on task %s: %w", t.ID, err)
	}
	if recipient == "" {
		_, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Message, ProjectID: t.ProjectID, TaskID: t.ID,
			AgentID: by.AgentID, Title: t.Title, Detail: text})
	} else {
		err = events.Publish(ctx, tx, events.Event{Kind: events.KindMessage, OrgID: by.OrgID, ProjectID: t.ProjectID,
			TaskID: t.ID, AgentID: recipient})
	}
	if err != nil {
		return Sent{}, fmt.Errorf("message on task %s: %w", t.ID, err)
	}
	return Sent{ID: id, To: recipient, Body: text}, nil
}

// recipient resolves an agent's to (an agent id, or "" for the people).
func (s *Service) recipient(ctx context.Context, tx bun.IDB, me string, t *Task, to *string) (string, error) {
	switch {
	case to != nil && *to == "human":
		return "", nil
	case to != nil && *to == me:
		return "", errs.E(errs.InvalidRequest, "a message to yourself is a note; use pact_note")
	case to != nil && *to != "":
		target, err := s.delegateTarget(ctx, tx, me, *to, t.ProjectID)
		if err != nil {
			return "", err
		}
		return target.ID, nil
	}
	var other string
	switch {
	case t.CreatedBy != me:
		other = t.CreatedBy
	case t.Assignee != nil:
		other = *t.Assignee
	case t.DelegateTo != nil:
		other = *t.DelegateTo
	}
	if other == "" || other == me {
		return "", errs.E(errs.InvalidRequest, `nobody else is on this task yet; name an agent in "to", or to="human"`)
	}
	return other, nil
}

// personRecipient resolves a person's to: that agent, else the task's
// assignee, delegate or creator, which must be an agent of the task's
// project that is not banned.
func (s *Service) personRecipient(ctx context.Context, tx bun.IDB, t *Task, to *string) (string, error) {
	var recipient string
	switch {
	case to != nil && strings.TrimSpace(*to) != "":
		recipient = strings.TrimSpace(*to)
	case t.Assignee != nil:
		recipient = *t.Assignee
	case t.DelegateTo != nil:
		recipient = *t.DelegateTo
	default:
		recipient = t.CreatedBy
	}
	ok, err := s.st.projectAgent(ctx, tx, recipient, t.ProjectID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errs.E(errs.AgentUnknown, "agent %s is not an agent of project %s", recipient, t.ProjectID)
	}
	return recipient, nil
}

// checkCap refuses an eleventh agent-to-agent message on a task, and tells
// the people once, in a transaction of its own so the notice survives the
// refusal.
func (s *Service) checkCap(ctx context.Context, tx bun.IDB, t *Task) error {
	n, err := s.st.agentMessages(ctx, tx, t.ID)
	if err != nil || n < messageCap {
		return err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// The notice is in the organization's language, which may have
		// changed since: any language's notice counts.
		notice := texts(s.cat, msgMessageCap, nil)
		told, err := s.st.capNoticed(ctx, tx, t.ID, slices.Collect(maps.Values(notice)))
		if err != nil || told {
			return err
		}
		_, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Question, ProjectID: t.ProjectID, TaskID: t.ID,
			Title: t.Title, DetailIn: notice})
		return err
	})
	if err != nil {
		return fmt.Errorf("message cap of task %s: %w", t.ID, err)
	}
	return errs.E(errs.LimitExceeded, `agents already sent each other 10 messages on task %s; ask a person (to="human") or pact_report status=input_required`, t.ID)
}

// checkPeopleCap refuses a message from an agent to the people of t when
// agents already sent them peopleCap that no person has answered: each
// one is a notification, and an agent in a loop must not flood the
// people's channels (docs/security.md, "7. Caps").
func (s *Service) checkPeopleCap(ctx context.Context, tx bun.IDB, t *Task) error {
	// Messages to the people on one task are counted one at a time, so two
	// at once cannot both be the last one allowed.
	n, err := s.st.unansweredToPeople(ctx, tx, t.ID)
	if err != nil {
		return err
	}
	if n < peopleCap {
		return nil
	}
	return errs.E(errs.LimitExceeded, "agents already sent the people %d messages on task %s that no person has answered; "+
		"wait for an answer (pact_wait), or pact_report status=input_required", peopleCap, t.ID)
}

// ReadThread returns task taskID's thread for agent by, which may see it
// (thread), oldest first (at most 200), and marks the messages to it read;
// it is its heartbeat on the task.
func (s *Service) ReadThread(ctx context.Context, tx bun.IDB, by Actor, taskID string) (*Task, []TaskMessage, error) {
	t, _, err := s.thread(ctx, tx, by, taskID)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := s.st.thread(ctx, tx, t.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("thread of task %s: %w", t.ID, err)
	}
	if err := s.st.markThreadRead(ctx, tx, t.ID, by.AgentID); err != nil {
		return nil, nil, fmt.Errorf("thread of task %s: %w", t.ID, err)
	}
	return t, msgs, s.st.heartbeat(ctx, tx, t.ID, by.AgentID)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
