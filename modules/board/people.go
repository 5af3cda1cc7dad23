package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// What people do to tasks (docs/specs/behavior.md §7.2, §10.2). The Admin API calls
// these; each checks the person's role, confines them to their organization
// (another organization's task answers like a missing one), and logs an
// admin.task.* entry with the change.

// personTask loads a task of the person's organization for update.
func personTask(ctx context.Context, tx bun.IDB, p *identity.Person, e *ledger.Entry, id string) (*task, error) {
	t, err := getTask(ctx, tx, id, true)
	if err != nil {
		return nil, err
	}
	var org string
	if t != nil {
		if err := tx.NewRaw(`SELECT org_id FROM projects WHERE id = ?`, t.ProjectID).Scan(ctx, &org); err != nil {
			return nil, err
		}
	}
	if t == nil || org != p.OrgID {
		return nil, errs.E(errs.NotFound, "task %s does not exist", id)
	}
	e.ProjectID, e.TaskID = t.ProjectID, t.ID
	return t, nil
}

func wakeFor(ctx context.Context, tx bun.IDB, t *task) error {
	ev := events.Event{Kind: events.KindTask, ProjectID: t.ProjectID, TaskID: t.ID}
	if t.DelegateTo != nil {
		ev.AgentID = *t.DelegateTo
	}
	return events.Publish(ctx, tx, ev)
}

// Approve approves (submitted) or rejects (rejected, its delegated mandate
// revoked) a task waiting for approval. Refusals: forbidden, not_found,
// invalid_request (not waiting for approval).
func (m *Module) Approve(ctx context.Context, by, taskID string, approve bool) error {
	return m.ident.Act(ctx, by, identity.Approver, "admin.task.approve", map[string]any{"task_id": taskID, "approve": approve},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if t.Status != authRequired {
				return errs.E(errs.InvalidRequest, "task %s is not waiting for approval", t.ID)
			}
			if !approve {
				if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'rejected' WHERE id = ?`, t.ID); err != nil {
					return err
				}
				_, _, err := m.closeMandates(ctx, tx, []string{t.ID})
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'submitted', approved_by = ?, approved_at = now() WHERE id = ?`,
				p.ID, t.ID); err != nil {
				return err
			}
			return wakeFor(ctx, tx, t)
		})
}

// Resume puts a deferred task back on the board, with an optional answer the
// agent then sees in pact_list (a resume without one keeps the last).
// Refusals: forbidden, not_found, invalid_request (not deferred).
func (m *Module) Resume(ctx context.Context, by, taskID string, answer *string) error {
	return m.ident.Act(ctx, by, identity.Approver, "admin.task.resume", map[string]any{"task_id": taskID, "answer": answer},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if !t.Deferred || t.Status != inputRequired {
				return errs.E(errs.InvalidRequest, "task %s is not deferred", t.ID)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'submitted', deferred = false,
				answer = coalesce(?, answer) WHERE id = ?`, answer, t.ID); err != nil {
				return err
			}
			return wakeFor(ctx, tx, t)
		})
}

// Cancel closes an open task as canceled; its delegated mandate and
// everything under it are revoked and its open subtasks canceled. It
// returns the mandates revoked. Refusals: forbidden, not_found,
// invalid_request (already closed).
func (m *Module) Cancel(ctx context.Context, by, taskID, reason string) ([]string, error) {
	var revoked []string
	err := m.ident.Act(ctx, by, identity.Approver, "admin.task.cancel", map[string]any{"task_id": taskID, "reason": reason},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if terminal[t.Status] {
				return errs.E(errs.InvalidRequest, "task %s is %s already", t.ID, t.Status)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'canceled', deferred = false, assignee = NULL,
				assignee_mandate_id = NULL, result = jsonb_build_object('reason', 'canceled_by_human', 'by', ?::text, 'note', ?::text)
				WHERE id = ?`, p.ID, reason, t.ID); err != nil {
				return err
			}
			revoked, _, err = m.closeMandates(ctx, tx, []string{t.ID})
			return err
		})
	return revoked, err
}

// Release takes a working task from its holder and puts it back on the
// board; the old holder's next report is claim_lost. Refusals: forbidden,
// not_found, invalid_request (not held).
func (m *Module) Release(ctx context.Context, by, taskID string) error {
	return m.ident.Act(ctx, by, identity.Approver, "admin.task.release", map[string]any{"task_id": taskID},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if t.Status != working || t.Assignee == nil {
				return errs.E(errs.InvalidRequest, "task %s is not held by anyone", t.ID)
			}
			e.Payload = map[string]any{"task_id": t.ID, "released_from": *t.Assignee}
			if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'submitted', assignee = NULL, assignee_mandate_id = NULL,
				claimed_at = NULL WHERE id = ?`, t.ID); err != nil {
				return err
			}
			return wakeFor(ctx, tx, t)
		})
}

// Assign delegates an open, unheld task to another agent of its project (or
// to nobody with agent ""); the previous delegate's mandate for it is
// revoked. It returns that mandate, if any. Refusals: forbidden, not_found,
// invalid_request (closed, held, or a chat agent), agent_unknown,
// agent_paused (banned).
func (m *Module) Assign(ctx context.Context, by, taskID, agent string) (string, error) {
	var revokedID string
	err := m.ident.Act(ctx, by, identity.Approver, "admin.task.assign", map[string]any{"task_id": taskID, "agent": agent},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if terminal[t.Status] {
				return errs.E(errs.InvalidRequest, "task %s is %s", t.ID, t.Status)
			}
			if t.Assignee != nil {
				return errs.E(errs.InvalidRequest, "task %s is held by %s; release it first", t.ID, *t.Assignee)
			}
			if agent != "" {
				if err := assignable(ctx, tx, agent, t.ProjectID); err != nil {
					return err
				}
			}
			if t.DelegateTo != nil && *t.DelegateTo == agent {
				return nil
			}
			// Detach the task from the old delegated mandate first: revoking it
			// cancels every open task hanging on it, and this one stays open.
			if _, err := tx.ExecContext(ctx, `UPDATE tasks SET delegate_to = ?, delegated_mandate_id = NULL WHERE id = ?`,
				nullable(agent), t.ID); err != nil {
				return err
			}
			if t.DelegatedMandateID != nil {
				revokedID = *t.DelegatedMandateID
				lineage, err := m.mandates.Lineage(ctx, tx, revokedID)
				if err != nil {
					return err
				}
				if !lineage.Revoked() {
					if _, err := m.mandates.RevokeSubtree(ctx, tx, lineage.Leaf().ID); err != nil {
						return err
					}
				}
			}
			t.DelegateTo = nullable(agent)
			return wakeFor(ctx, tx, t)
		})
	return revokedID, err
}

func assignable(ctx context.Context, tx bun.IDB, agent, project string) error {
	var rows []struct {
		Client string `bun:"client"`
		Status string `bun:"status"`
	}
	if err := tx.NewRaw(`SELECT a.client, a.status FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id = ? AND ap.project_id = ?`, agent, project).Scan(ctx, &rows); err != nil {
		return err
	}
	switch {
	case len(rows) == 0:
		return errs.E(errs.AgentUnknown, "agent %s is not registered in project %s", agent, project)
	case postOnly[rows[0].Client]:
		return errs.E(errs.InvalidRequest, "agent %s is a %s agent; it posts tasks but cannot claim them", agent, rows[0].Client)
	case rows[0].Status == "banned":
		return errs.E(errs.AgentPaused, "agent %s is banned", agent)
	}
	return nil
}

// Edit corrects an open task's title or body; the log keeps the old text.
// Refusals: forbidden, not_found, invalid_request (closed, blank title).
func (m *Module) Edit(ctx context.Context, by, taskID string, title, body *string) error {
	return m.ident.Act(ctx, by, identity.Approver, "admin.task.edit", map[string]any{"task_id": taskID},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if terminal[t.Status] {
				return errs.E(errs.InvalidRequest, "task %s is %s; it can no longer be edited", t.ID, t.Status)
			}
			if title != nil && (strings.TrimSpace(*title) == "" || len([]rune(*title)) > 300) {
				return errs.E(errs.InvalidRequest, "a task needs a title of 1-300 characters")
			}
			e.Payload = map[string]any{"task_id": t.ID, "title": title, "body": body,
				"was": map[string]any{"title": t.Title, "body": t.Body}}
			_, err = tx.ExecContext(ctx, `UPDATE tasks SET title = coalesce(?, title), body = coalesce(?, body) WHERE id = ?`,
				trimmed(title), body, t.ID)
			return err
		})
}

func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}
