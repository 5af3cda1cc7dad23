package people

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

var (
	roleID     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,30}$`)
	settingKey = regexp.MustCompile(`^(PACT_RUNNER_[A-Z0-9_]+|DATABASE_URL)$`)
)

// AgentRole is a job description agents are hired from: what its mandate
// grants (project-relative actions), its budget and terms, and for runners
// the settings their machine runs with. Role ids repeat per organization.
type AgentRole struct {
	ID           string             `bun:"id" json:"id"`
	OrgID        string             `bun:"org_id" json:"-"`
	Name         string             `bun:"name" json:"name"`
	Description  string             `bun:"description" json:"description"`
	Client       string             `bun:"client" json:"client"`
	Actions      []string           `bun:"actions,array" json:"actions"`
	Limits       map[string]float64 `bun:"limits,type:jsonb" json:"limits"`
	Delegations  int                `bun:"delegations" json:"delegations"`
	MandateDays  float64            `bun:"mandate_days" json:"mandate_days"`
	TokenDays    float64            `bun:"token_days" json:"token_days"`
	Settings     map[string]string  `bun:"settings,type:jsonb" json:"settings"`
	Instructions string             `bun:"instructions" json:"instructions"`
	Position     int                `bun:"position" json:"position"`
	ArchivedAt   *time.Time         `bun:"archived_at" json:"archived_at"`
	UpdatedAt    time.Time          `bun:"updated_at" json:"updated_at"`
	UpdatedBy    *string            `bun:"updated_by" json:"updated_by"`
}

// Roles lists the roles of person p's organization by position, then id;
// archived ones only when archived is set. Anyone may list them: secret
// settings say only that they are set (SEC-006).
func (s *Service) Roles(ctx context.Context, p *identity.Person, archived bool) ([]AgentRole, error) {
	out, err := rolesOf(ctx, s.db, p.OrgID, archived)
	for i := range out {
		out[i].Settings = shownSettings(out[i].Settings)
	}
	return out, err
}

// getRole returns org's role id (archived or not), or not_found, its secret
// settings sealed as stored: callers that show it use shownSettings.
func getRole(ctx context.Context, tx bun.IDB, org, id string) (*AgentRole, error) {
	r, err := roleOf(ctx, tx, org, id)
	if err == nil && r == nil {
		err = errs.E(errs.NotFound, "role %s does not exist", id)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// liveRole is getRole refusing an archived role (invalid_request).
func liveRole(ctx context.Context, tx bun.IDB, org, id string) (*AgentRole, error) {
	r, err := getRole(ctx, tx, org, id)
	if err == nil && r.ArchivedAt != nil {
		return nil, errs.E(errs.InvalidRequest, "role %s is archived; it hires no one", id)
	}
	return r, err
}

// RoleInput describes a role to save. Zero Delegations, MandateDays,
// TokenDays and Position take the defaults 1, 30, 90 and 100.
type RoleInput struct {
	ID           string             `json:"id"`
	Name         string             `json:"name"`
	Description  string             `json:"description"`
	Client       string             `json:"client"`
	Actions      []string           `json:"actions"`
	Limits       map[string]float64 `json:"limits"`
	Delegations  *int               `json:"delegations"`
	MandateDays  float64            `json:"mandate_days"`
	TokenDays    float64            `json:"token_days"`
	Settings     map[string]string  `json:"settings"`
	Instructions string             `json:"instructions"`
	Position     *int               `json:"position"`
}

// SaveRole creates or replaces a role of the acting approver's
// organization; saving an archived role un-archives it. Refusals: forbidden
// (also an approver adding, changing or removing PACT_RUNNER_COMMAND),
// invalid_request (id, name, client, actions, limits, settings or a value
// out of range).
func (s *Service) SaveRole(ctx context.Context, by string, in RoleInput) (*AgentRole, error) {
	in.Name, in.Description = strings.TrimSpace(in.Name), strings.TrimSpace(in.Description)
	var out *AgentRole
	logged := in
	// Secret settings (a database URL's password, tokens): the log says
	// they were set, never what (SEC-006).
	logged.Settings = shownSettings(in.Settings)
	err := s.ident.Act(ctx, by, identity.Approver, "admin.role.save", logged, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		if err := validRole(in); err != nil {
			return err
		}
		del, pos := 1, 100
		if in.Delegations != nil {
			del = *in.Delegations
		}
		if in.Position != nil {
			pos = *in.Position
		}
		md, td := in.MandateDays, in.TokenDays
		if md == 0 {
			md = 30
		}
		if td == 0 {
			td = 90
		}
		limits, _ := json.Marshal(orEmpty(in.Limits))
		var stored map[string]string
		if old, err := getRole(ctx, tx, p.OrgID, in.ID); err == nil {
			stored = old.Settings
		} else if errs.CodeOf(err) != errs.NotFound {
			return err
		}
		if err := ownerSetsCommand(p, in.ID, stored, in.Settings); err != nil {
			return err
		}
		sealed, err := sealSettings(s.seal, p.OrgID, in.ID, orEmpty(in.Settings), stored)
		if err != nil {
			return err
		}
		settings, _ := json.Marshal(sealed)
		err = saveRole(ctx, tx, roleRow{Org: p.OrgID, ID: in.ID, Name: in.Name, Description: in.Description,
			Client: in.Client, Actions: in.Actions, Limits: string(limits), Delegations: del, MandateDays: md,
			TokenDays: td, Settings: string(settings), Instructions: in.Instructions, Position: pos, By: p.ID})
		if err != nil {
			if db.PgCode(err) == db.CheckViolation {
				return errs.E(errs.InvalidRequest, "role %s is out of range: %s", in.ID, pgConstraint(err))
			}
			return db.Refusal(err, "role "+in.ID)
		}
		out, err = getRole(ctx, tx, p.OrgID, in.ID)
		if err == nil {
			out.Settings = shownSettings(out.Settings)
		}
		return err
	})
	return out, err
}

// runnerCommand is the role setting runners hired from the role run with
// sh -c on their machine for every task (docs/runner.md), through the env
// file pact-connect writes.
const runnerCommand = "PACT_RUNNER_COMMAND"

// ownerSetsCommand refuses (forbidden) a save by anyone but an owner that
// adds, changes or removes role's PACT_RUNNER_COMMAND: choosing what runs
// on the machines of the organization's runners is an owner's decision
// (docs/security.md, issue 29 finding 9; SEC-023). A save that leaves it
// as stored passes, so an approver may still edit the rest of the role.
func ownerSetsCommand(p *identity.Person, role string, stored, in map[string]string) error {
	was, had := stored[runnerCommand]
	now, has := in[runnerCommand]
	if (had == has && was == now) || p.Role.AtLeast(identity.Owner) {
		return nil
	}
	verb := "change"
	switch {
	case !had:
		verb = "set"
	case !has:
		verb = "remove"
	}
	return errs.E(errs.Forbidden, "only an owner may set, change or remove %s, the shell command runners hired from role %s run "+
		"on their machine; %s is %s and may not %s it: ask an owner to save it, or save the role with %s as it is",
		runnerCommand, role, p.ID, p.Role, verb, runnerCommand)
}

// pgConstraint names the constraint a PostgreSQL error broke.
func pgConstraint(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.ConstraintName
	}
	return ""
}

func validRole(in RoleInput) error {
	if !roleID.MatchString(in.ID) {
		return errs.E(errs.InvalidRequest, "role id %q must be 1-31 characters of a-z, 0-9 and '-', starting with a letter or digit", in.ID)
	}
	if in.Name == "" {
		return errs.E(errs.InvalidRequest, "a role needs a name")
	}
	if !identity.ValidClient(in.Client) {
		return errs.E(errs.InvalidRequest, "client must be one of chat, cowork, design, code, gemini, runner, a2a, a2a-remote, not %q", in.Client)
	}
	if len(in.Actions) == 0 {
		return errs.E(errs.InvalidRequest, "a role needs at least one action")
	}
	for _, a := range in.Actions {
		if strings.Contains(a, "@") {
			return errs.E(errs.InvalidRequest, "role actions are project-relative (e.g. task.work), not %q", a)
		}
		if err := mandate.ValidScope(a); err != nil {
			return errs.E(errs.InvalidRequest, "role action %q is not a valid action", a)
		}
	}
	for k, v := range in.Limits {
		if !(v >= 0) {
			return errs.E(errs.InvalidRequest, "limit %s must be a number of at least 0", k)
		}
	}
	for k := range in.Settings {
		if !settingKey.MatchString(k) {
			return errs.E(errs.InvalidRequest, "setting %q must be PACT_RUNNER_<NAME> or DATABASE_URL", k)
		}
	}
	return nil
}

// ArchiveRole archives a role of the acting approver's organization: it
// hires no one from now on; agents hired from it keep working. Refusals:
// forbidden, not_found.
func (s *Service) ArchiveRole(ctx context.Context, by, id string) (*AgentRole, error) {
	var out *AgentRole
	err := s.ident.Act(ctx, by, identity.Approver, "admin.role.archive", map[string]any{"role_id": id},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if _, err := getRole(ctx, tx, p.OrgID, id); err != nil {
				return err
			}
			if err := archiveRole(ctx, tx, p.OrgID, id, p.ID); err != nil {
				return err
			}
			var err error
			out, err = getRole(ctx, tx, p.OrgID, id)
			if err == nil {
				out.Settings = shownSettings(out.Settings)
			}
			return err
		})
	return out, err
}
