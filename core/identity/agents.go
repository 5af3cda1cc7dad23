package identity

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Clients an agent can be.
var clients = map[string]bool{"chat": true, "cowork": true, "design": true, "code": true, "gemini": true, "runner": true,
	"a2a": true, "a2a-remote": true}

// singleProject clients work in exactly one project.
var singleProject = map[string]bool{"code": true, "runner": true}

// Clients are the clients an agent can be, sorted.
func Clients() []string {
	out := make([]string, 0, len(clients))
	for c := range clients {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// ValidClient reports whether client is a client an agent can be.
func ValidClient(client string) bool { return clients[client] }

// SingleProject reports whether agents of client work in exactly one
// project.
func SingleProject(client string) bool { return singleProject[client] }

// Agent is a registered agent.
type Agent struct {
	ID            string          `bun:"id" json:"id"`
	OrgID         string          `bun:"org_id" json:"org_id"`
	Owner         string          `bun:"owner" json:"owner"`
	Client        string          `bun:"client" json:"client"`
	Status        string          `bun:"status" json:"status"`
	RootMandateID *uuid.UUID      `bun:"root_mandate_id" json:"root_mandate_id"`
	LastSeen      *time.Time      `bun:"last_seen" json:"last_seen"`
	Preferences   json.RawMessage `bun:"preferences,type:jsonb" json:"preferences"`
	ReplacedBy    *string         `bun:"replaced_by" json:"replaced_by"`
	RoleID        *string         `bun:"role_id" json:"role_id"`
	CreatedAt     time.Time       `bun:"created_at" json:"created_at"`
	Projects      []string        `bun:"projects,array" json:"projects"`
}

const agentCols = `a.id, a.org_id, a.owner, a.client, a.status, a.root_mandate_id,
	(SELECT last_seen FROM agent_presence WHERE agent_id = a.id) AS last_seen, a.preferences,
	a.replaced_by, a.role_id, a.created_at,
	coalesce((SELECT array_agg(project_id ORDER BY project_id) FROM agent_projects WHERE agent_id = a.id), '{}') AS projects`

// GetAgent returns agent id when it belongs to org ("" for any organization);
// otherwise not_found.
func (s *Service) GetAgent(ctx context.Context, tx bun.IDB, id, org string) (*Agent, error) {
	var as []Agent
	err := tx.NewRaw(`SELECT `+agentCols+` FROM agents a WHERE a.id = ? AND (? = '' OR a.org_id = ?)`, id, org, org).Scan(ctx, &as)
	if err != nil {
		return nil, fmt.Errorf("identity.GetAgent: %w", err)
	}
	if len(as) == 0 {
		return nil, errs.E(errs.NotFound, "agent %s does not exist", id)
	}
	return &as[0], nil
}

// ScopesWithin refuses a board scope naming a project the agent is not
// registered for; other scopes must merely be well formed.
func ScopesWithin(scope, projects []string) error {
	allowed := map[string]bool{}
	for _, p := range projects {
		allowed[p] = true
	}
	for _, sc := range scope {
		if err := mandate.ValidScope(sc); err != nil {
			return err
		}
		if _, project, ok := mandate.ParseBoardScope(sc); ok && !allowed[project] {
			return errs.E(errs.ProjectMismatch, "scope %s names project %s, which the agent is not registered for", sc, project)
		}
	}
	return nil
}

// RequireHumanInOrg refuses (not_found) owner unless they are an active
// person of org: the owner of an agent, the person a trusted root stands for.
func (s *Service) RequireHumanInOrg(ctx context.Context, tx bun.IDB, owner, org string) error {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM humans WHERE id = ? AND org_id = ? AND disabled_at IS NULL`, owner, org).Scan(ctx, &n)
	if err != nil {
		return fmt.Errorf("identity.RequireHumanInOrg: %w", err)
	}
	if n == 0 {
		return errs.E(errs.NotFound, "human %s does not exist", owner)
	}
	return nil
}
