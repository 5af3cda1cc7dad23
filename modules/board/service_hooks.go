package board

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// What Claude Code's hooks ask of the board (docs/hooks.md,
// docs/specs/behavior.md §9.4–9.6); the hook endpoints (hooks_*.go) word
// the answers Claude Code shows.

// DelegatedTask is a task delegated to an agent, as auto-claim would take it.
type DelegatedTask struct {
	ID        string `bun:"id"`
	Title     string `bun:"title"`
	Body      string `bun:"body"`
	ProjectID string `bun:"project_id"`
	CreatedBy string `bun:"created_by"`
	MandateID string `bun:"delegated_mandate_id"`
}

// HeldTask is a working task an agent holds, as a hook sees it.
type HeldTask struct {
	ID        string `bun:"id"`
	Title     string `bun:"title"`
	ProjectID string `bun:"project_id"`
	MandateID string `bun:"assignee_mandate_id"`
}

// AuthenticateHook reports whether token is a live agent token of agent:
// hooks send the agent's own token.
func (s *Service) AuthenticateHook(ctx context.Context, agent, token string) (bool, error) {
	return s.ident.AuthenticateAgent(ctx, s.db, agent, token)
}

// ToolUse is what RecordToolUse did: how many tasks the agent holds, and
// the one whose heartbeat the tool use was (when it holds exactly one).
type ToolUse struct {
	Held   int
	TaskID string
}

// RecordToolUse logs a tool use of Claude Code as hook.post_tool_use, with
// summary, under the mandate of the one task the agent holds, as a
// heartbeat of that task (§9.4). With no task or several it logs nothing.
// The call passes the gate and the chain's verification like a tool call;
// a refusal is logged and returned.
func (s *Service) RecordToolUse(ctx context.Context, agent string, summary map[string]any) (ToolUse, error) {
	held, err := s.st.heldTasks(ctx, s.db, agent)
	if err != nil {
		return ToolUse{}, err
	}
	if len(held) != 1 {
		return ToolUse{Held: len(held)}, nil
	}
	t := held[0]
	e := ledger.Entry{Actor: "agent:" + agent, AgentID: agent, Action: "hook.post_tool_use", ProjectID: t.ProjectID,
		TaskID: t.ID, Payload: summary}
	err = s.log.Record(ctx, s.db, e, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		who, err := identity.Admit(ctx, s.db, tx, agent)
		if who != nil {
			e.OrgID = who.OrgID
		}
		if err != nil {
			return err
		}
		chain, err := s.mandates.Verify(ctx, tx, t.MandateID, agent)
		if err != nil {
			return err
		}
		e.MandateChain = chain.IDs()
		now, err := s.st.getTask(ctx, tx, t.ID, true)
		if err != nil {
			return err
		}
		if now == nil || now.Status != "working" || now.Assignee == nil || *now.Assignee != agent {
			return errs.E(errs.ClaimLost, "task %s is no longer claimed by %s; stop working on it", t.ID, agent)
		}
		p, err := loadProject(ctx, tx, t.ProjectID)
		if err != nil {
			return err
		}
		if err := refuseFrozen(p); err != nil {
			return err
		}
		return s.st.heartbeat(ctx, tx, t.ID, agent)
	})
	if err != nil {
		return ToolUse{}, err
	}
	s.ident.Seen(agent)
	return ToolUse{Held: 1, TaskID: t.ID}, nil
}

// SessionStart is where a Claude Code session of agent stands: the
// agent's root mandate ("" for none), under which the session is told of
// new tasks, and its cursor over the task changes it was told of.
func (s *Service) SessionStart(ctx context.Context, agent, session string) (root string, cursor int64, err error) {
	a, err := s.ident.GetAgent(ctx, s.db, agent, "")
	if err != nil {
		return "", 0, err
	}
	if a.RootMandateID != nil {
		root = a.RootMandateID.String()
	}
	if cursor, err = s.st.sessionCursor(ctx, agent, session); err != nil {
		return "", 0, fmt.Errorf("board.newTasksForSession: %w", err)
	}
	return root, cursor, nil
}

// MoveSessionCursor moves agent's session's cursor to next: each task is
// reported once per session.
func (s *Service) MoveSessionCursor(ctx context.Context, agent, session string, next int64) error {
	if err := s.st.moveSessionCursor(ctx, agent, session, next); err != nil {
		return fmt.Errorf("board.newTasksForSession: %w", err)
	}
	return nil
}

// AutoClaimInput is what a Claude Code session's hook says of it when a
// new prompt is submitted.
type AutoClaimInput struct {
	// On: auto-claim is on for the repository; Allow are the senders whose
	// tasks it may take.
	On    bool
	Allow []string
	// PermissionMode is the session's ("" when the hook did not say).
	PermissionMode string
	// GitClean: the working tree has no uncommitted or staged change.
	GitClean bool
}

// AutoClaimBlock is a condition of auto-claim that does not hold: off, no
// senders, permission mode (Mode), dirty tree, busy (Held, the task the
// agent works on) or sender (Sender, not allowed).
type AutoClaimBlock struct {
	Why    string
	Mode   string
	Held   *HeldTask
	Sender string
}

// AutoClaim is what a new prompt may start (AutoClaimCheck): Task, the
// oldest task delegated to the agent, to claim with its delegated mandate
// unless a condition blocks it.
type AutoClaim struct {
	Task   *DelegatedTask
	Blocks []AutoClaimBlock
}

// AutoClaimCheck finds the task a Claude Code session's new prompt may
// start (§9.6): the oldest task delegated to agent, that a live mandate
// lets it read, of a project neither production nor frozen; and the
// conditions that block it, in the order the session is told them:
// auto-claim must be on, some senders allowed, the session in the default
// permission mode, the working tree clean, the agent holding no working
// task, and the task's sender allowed. Hooks claim nothing any other way.
func (s *Service) AutoClaimCheck(ctx context.Context, agent string, in AutoClaimInput) (AutoClaim, error) {
	who, err := identity.Admit(ctx, s.db, s.db, agent)
	if err != nil {
		return AutoClaim{}, err
	}
	// Only where a live mandate lets it read tasks, as for its messages.
	reach, err := s.mandates.Reach(ctx, s.db, agent, "task.read", who.Projects)
	if err != nil {
		return AutoClaim{}, err
	}
	t, err := s.st.delegatedCandidate(ctx, agent, reach, in.Allow)
	if err != nil || t == nil {
		return AutoClaim{}, wrapf(err, "board.autoClaim")
	}
	out := AutoClaim{Task: t}
	if !in.On {
		out.Blocks = append(out.Blocks, AutoClaimBlock{Why: "off"})
	}
	if len(in.Allow) == 0 {
		out.Blocks = append(out.Blocks, AutoClaimBlock{Why: "no senders"})
	}
	if in.PermissionMode != "default" {
		out.Blocks = append(out.Blocks, AutoClaimBlock{Why: "permission mode", Mode: in.PermissionMode})
	}
	if !in.GitClean {
		out.Blocks = append(out.Blocks, AutoClaimBlock{Why: "dirty tree"})
	}
	held, err := s.st.heldTasks(ctx, s.db, agent)
	if err != nil {
		return AutoClaim{}, err
	}
	if len(held) > 0 {
		out.Blocks = append(out.Blocks, AutoClaimBlock{Why: "busy", Held: &held[0]})
	}
	if len(in.Allow) > 0 && !slices.Contains(in.Allow, t.CreatedBy) {
		out.Blocks = append(out.Blocks, AutoClaimBlock{Why: "sender", Sender: t.CreatedBy})
	}
	return out, nil
}

// HandMessages takes the agent's unread messages for a hook's answer
// (§9.5), where a live mandate lets it read tasks (SEC-025: a revoked chain
// or a project left takes the messages there away; a Runner's production
// projects stay out), and marks them read, logged as hook.messages naming
// them with event. A halted or inactive agent gets none.
func (s *Service) HandMessages(ctx context.Context, agent, event string) ([]TaskMessage, error) {
	who, err := identity.Admit(ctx, s.db, s.db, agent)
	if err != nil {
		return nil, nil // halted, paused, banned: the messages wait
	}
	reach, err := s.mandates.Reach(ctx, s.db, agent, "task.read", who.Projects)
	if err != nil {
		return nil, err
	}
	projects := []string{}
	for _, p := range reach {
		if row := who.Project(p); who.Client != "runner" || row == nil || !row.Production {
			projects = append(projects, p)
		}
	}
	if ready, err := s.st.anyUnread(ctx, agent, projects, ""); err != nil || !ready {
		return nil, err
	}
	var msgs []TaskMessage
	e := ledger.Entry{Actor: "agent:" + agent, AgentID: agent, OrgID: who.OrgID, Action: "hook.messages"}
	err = s.log.Record(ctx, s.db, e, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		var err error
		if msgs, err = s.unreadMessages(ctx, tx, agent, projects, "", true); err != nil {
			return err
		}
		ids := make([]int64, len(msgs))
		for i, msg := range msgs {
			ids[i] = msg.ID
		}
		e.Payload = map[string]any{"event": event, "message_ids": ids}
		return nil
	})
	return msgs, err
}
