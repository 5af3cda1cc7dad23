package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// PosterReply is what Reply did: the task is back on the board, and the
// agent that asked got the answer as message MessageID (To is "" when it
// is no longer an agent of the project: the answer stays on the task).
type PosterReply struct {
	TaskID, To string
	MessageID  int64
}

// Reply is the poster's reply to the question its task asked
// (pact_reply, and A2A's reply to input-required, docs/a2a.md):
// as a person's resume with an answer does, it puts the task back on the
// board with the answer, and writes it to the agent that asked as a
// message that wakes it. Only a question can be answered so: a task
// deferred for want of authority (pact_defer) waits for a person.
// Refusals: not_found (a task by cannot see), forbidden (another agent's
// task), invalid_request (it asks nothing; a deferral; no answer, or one
// longer than a message).
func (s *Service) Reply(ctx context.Context, tx bun.IDB, by Actor, taskID, reply string) (PosterReply, error) {
	t, _, err := s.thread(ctx, tx, by, taskID)
	if err != nil {
		return PosterReply{}, err
	}
	switch {
	case t.CreatedBy != by.AgentID:
		return PosterReply{}, errs.E(errs.Forbidden, "task %s was posted by %s; only its poster replies to its questions, "+
			"and people in the Admin UI", t.ID, t.CreatedBy)
	case t.Status != inputRequired || !t.Deferred:
		return PosterReply{}, errs.E(errs.InvalidRequest, "task %s is %s and asks nothing; send a message instead (pact_message)", t.ID, t.Status)
	case !t.Asked:
		return PosterReply{}, errs.E(errs.InvalidRequest, "task %s was handed to people for want of authority, not with a "+
			"question: a person decides it in the Admin UI", t.ID)
	}
	text := redact.Text(strings.TrimSpace(reply))
	switch n := len([]rune(text)); {
	case n == 0:
		return PosterReply{}, errs.E(errs.InvalidRequest, "a reply needs words (reply)")
	case n > MaxMessage:
		return PosterReply{}, errs.E(errs.InvalidRequest, "a reply is at most %d characters (this one has %d); write longer "+
			"text in a note (pact_note) and reply with its key", MaxMessage, n)
	}
	asker, err := s.st.resumeTask(ctx, tx, t.ID, &text)
	if err != nil {
		return PosterReply{}, fmt.Errorf("reply on task %s: %w", t.ID, err)
	}
	out := PosterReply{TaskID: t.ID}
	if asker != nil && *asker != by.AgentID {
		ok, err := s.st.projectAgent(ctx, tx, *asker, t.ProjectID)
		if err != nil {
			return PosterReply{}, err
		}
		if ok {
			if out.MessageID, err = s.st.insertMessage(ctx, tx, by.OrgID, t.ID, &by.AgentID, nil, asker, text); err != nil {
				return PosterReply{}, fmt.Errorf("reply on task %s: %w", t.ID, err)
			}
			out.To = *asker
			if err := events.Publish(ctx, tx, events.Event{Kind: events.KindMessage, OrgID: by.OrgID, ProjectID: t.ProjectID,
				TaskID: t.ID, AgentID: *asker}); err != nil {
				return PosterReply{}, err
			}
		}
	}
	return out, wrapf(s.wakeFor(ctx, tx, t), "reply on task %s", t.ID)
}
