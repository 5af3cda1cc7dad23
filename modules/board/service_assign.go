package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// Assign delegates an open, unheld task to another agent of its project (or
// to nobody with agent ""); the previous delegate's mandate for it is
// revoked. It returns that mandate, if any (docs/specs/behavior.md §10.2).
func (s *Service) Assign(ctx context.Context, tx bun.IDB, by Actor, taskID string, agent string) (string, error) {
	t, _, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return "", err
	}
	if terminal[t.Status] {
		return "", errs.E(errs.InvalidRequest, "task %s is %s", t.ID, t.Status)
	}
	if t.Assignee != nil {
		return "", errs.E(errs.InvalidRequest, "task %s is held by %s; release it first", t.ID, *t.Assignee)
	}
	if agent != "" {
		if err := s.assignable(ctx, tx, agent, t.ProjectID); err != nil {
			return "", wrapf(err, "assign %s", t.ID)
		}
	}
	if t.DelegateTo != nil && *t.DelegateTo == agent {
		return "", nil
	}
	// Detach the task from the old delegated mandate first: revoking it
	// cancels every open task hanging on it, and this one stays open.
	if err := s.st.setDelegate(ctx, tx, t.ID, nullable(agent)); err != nil {
		return "", wrapf(err, "assign %s", t.ID)
	}
	var revokedID string
	if t.DelegatedMandateID != nil {
		revokedID = *t.DelegatedMandateID
		lineage, err := s.mandates.Lineage(ctx, tx, revokedID)
		if err != nil {
			return "", wrapf(err, "assign %s", t.ID)
		}
		if !lineage.Revoked() {
			if _, err := s.mandates.RevokeSubtree(ctx, tx, lineage.Leaf().ID); err != nil {
				return "", wrapf(err, "assign %s", t.ID)
			}
		}
	}
	t.DelegateTo = nullable(agent)
	return revokedID, wrapf(s.wakeFor(ctx, tx, t), "assign %s", t.ID)
}

// assignable refuses an agent a person may not hand a task of project to.
func (s *Service) assignable(ctx context.Context, tx bun.IDB, agent, project string) error {
	row, err := s.st.projectAgentRow(ctx, tx, agent, project)
	if err != nil {
		return err
	}
	switch {
	case row == nil:
		return errs.E(errs.AgentUnknown, "agent %s is not registered in project %s", agent, project)
	case postOnly[row.Client]:
		return errs.E(errs.InvalidRequest, "agent %s is a %s agent; it posts tasks but cannot claim them", agent, row.Client)
	case row.Status == "banned":
		return errs.E(errs.AgentPaused, "agent %s is banned", agent)
	}
	return nil
}

// Edited is the text an edit replaced.
type Edited struct{ Title, Body string }

// Editable refuses an edit that names nothing to change; the adapters ask
// before they log the edit.
func (s *Service) Editable(title, body *string) error {
	if title == nil && body == nil {
		return errs.E(errs.InvalidRequest, "name something to change: title or body")
	}
	return nil
}

// Edit corrects an open task's title or body (nil keeps it), and returns
// the text it replaced.
func (s *Service) Edit(ctx context.Context, tx bun.IDB, by Actor, taskID string, title, body *string) (Edited, error) {
	t, _, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return Edited{}, err
	}
	if terminal[t.Status] {
		return Edited{}, errs.E(errs.InvalidRequest, "task %s is %s; it can no longer be edited", t.ID, t.Status)
	}
	// Redacted before the length check, as a posted title is.
	title = trimmed(redactedText(title))
	if title != nil && (*title == "" || len([]rune(*title)) > 300) {
		return Edited{}, errs.E(errs.InvalidRequest, "a task needs a title of 1-300 characters")
	}
	return Edited{Title: t.Title, Body: t.Body}, wrapf(s.st.editTask(ctx, tx, t.ID, title, body), "edit %s", t.ID)
}

func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}
