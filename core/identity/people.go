package identity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Role is a person's rank: viewer < approver < owner.
type Role string

// The roles of people.
const (
	Viewer   Role = "viewer"
	Approver Role = "approver"
	Owner    Role = "owner"
)

func (r Role) rank() int {
	switch r {
	case Owner:
		return 2
	case Approver:
		return 1
	case Viewer:
		return 0
	}
	return -1
}

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r.rank() >= 0 }

// AtLeast reports whether r ranks at or above min (viewer < approver < owner).
func (r Role) AtLeast(min Role) bool { return r.Valid() && r.rank() >= min.rank() }

// Person is a registered human.
type Person struct {
	ID         string     `bun:"id" json:"id"`
	OrgID      string     `bun:"org_id" json:"org_id"`
	Name       string     `bun:"name" json:"name"`
	Role       Role       `bun:"role" json:"role"`
	Email      *string    `bun:"email" json:"email"`
	DisabledAt *time.Time `bun:"disabled_at" json:"disabled_at"`
	CreatedAt  time.Time  `bun:"created_at" json:"created_at"`
	// Language is the language the person chose for texts addressed to
	// them (core/i18n); nil follows their organization's.
	Language *string `bun:"language" json:"language"`
}

const personCols = `id, org_id, name, role, email, disabled_at, created_at, language`

// RequirePerson loads the acting person and checks their rank (§10.1). It
// returns the person even when refusing, so the refusal is logged in their
// organization.
func RequirePerson(ctx context.Context, tx bun.IDB, id string, min Role) (*Person, error) {
	p, err := personWhere(ctx, tx, `id = ?`, id)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errs.E(errs.Forbidden, "%s is not a registered human", id)
	}
	if p.DisabledAt != nil {
		return p, errs.E(errs.Forbidden, "%s is disabled", id)
	}
	if p.Role.rank() < min.rank() {
		return p, errs.E(errs.Forbidden, "%s is %s; this needs %s", id, p.Role, min)
	}
	return p, nil
}

// HumanInput describes a person to add.
type HumanInput struct {
	ID, Name string
	Role     Role
	Email    string
}

// AddHuman adds a person to the acting owner's organization. With by empty
// it bootstraps the board's first person, who must be an owner and joins the
// default organization; once anyone exists, by is required. Refusals:
// invalid_request (id, name, role or email malformed), id_taken (id or email
// already registered), forbidden (by missing or not an owner).
func (s *Service) AddHuman(ctx context.Context, by string, in HumanInput) (*Person, error) {
	in.Name = strings.TrimSpace(in.Name)
	in.Email = strings.TrimSpace(in.Email)
	payload := map[string]any{"id": in.ID, "name": in.Name, "role": in.Role, "email": nilIfEmpty(in.Email)}
	var out *Person
	add := func(ctx context.Context, tx bun.Tx, org string) error {
		if err := validHuman(in); err != nil {
			return err
		}
		if err := idFree(ctx, tx, "humans", in.ID, "human"); err != nil {
			return err
		}
		if in.Email != "" {
			taken, err := s.EmailTaken(ctx, tx, org, in.Email, "")
			if err != nil {
				return err
			}
			if taken {
				return errs.E(errs.IDTaken, "email %s is already someone's in this organization", in.Email)
			}
		}
		var p Person
		err := tx.NewRaw(`INSERT INTO humans (id, org_id, name, role, email) VALUES (?, ?, ?, ?, ?) RETURNING `+personCols,
			in.ID, org, in.Name, in.Role, nilIfEmpty(in.Email)).Scan(ctx, &p)
		if err != nil {
			return translate(err, "human "+in.ID)
		}
		out = &p
		return nil
	}
	if by != "" {
		err := s.Act(ctx, by, Owner, "admin.human.add", payload, func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			return add(ctx, tx, p.OrgID)
		})
		return out, err
	}
	// Bootstrap: the first person acts for themselves.
	e := ledger.Entry{Actor: "human:" + in.ID, Action: "admin.human.add", Payload: payload, OrgID: "default"}
	err := s.log.Record(ctx, s.db, e, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		// Serialise bootstraps so two first people cannot both slip in.
		if _, err := tx.ExecContext(ctx, `LOCK TABLE humans IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("identity.AddHuman: %w", err)
		}
		var n int
		if err := tx.NewRaw(`SELECT count(*) FROM humans`).Scan(ctx, &n); err != nil {
			return fmt.Errorf("identity.AddHuman: %w", err)
		}
		if n > 0 {
			return errs.E(errs.Forbidden, "the board already has people: name the owner adding this person with --by <human-id>")
		}
		if in.Role != Owner {
			return errs.E(errs.InvalidRequest, "the first person must be an owner, not %q", in.Role)
		}
		return add(ctx, tx, "default")
	})
	return out, err
}

func validHuman(in HumanInput) error {
	if !humanID.MatchString(in.ID) {
		return errs.E(errs.InvalidRequest, "human id %q must be 1-63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit", in.ID)
	}
	if in.Name == "" || len([]rune(in.Name)) > 200 {
		return errs.E(errs.InvalidRequest, "a person needs a name of 1-200 characters")
	}
	if in.Role.rank() < 0 {
		return errs.E(errs.InvalidRequest, "role must be owner, approver or viewer, not %q", in.Role)
	}
	if in.Email != "" && !emailRe.MatchString(in.Email) {
		return errs.E(errs.InvalidRequest, "%q is not an email address", in.Email)
	}
	return nil
}

// GetPerson returns person id, or not_found.
func (s *Service) GetPerson(ctx context.Context, tx bun.IDB, id string) (*Person, error) {
	p, err := personWhere(ctx, tx, `id = ?`, id)
	if err == nil && p == nil {
		err = errs.E(errs.NotFound, "human %s does not exist", id)
	}
	return p, err
}

// ListPeople lists the people of org, by id.
func (s *Service) ListPeople(ctx context.Context, tx bun.IDB, org string) ([]Person, error) {
	out := []Person{}
	err := tx.NewRaw(`SELECT `+personCols+` FROM humans WHERE org_id = ? ORDER BY id`, org).Scan(ctx, &out)
	return out, err
}

// HumanExists reports whether id names a person of any organization (ids
// are global).
func (s *Service) HumanExists(ctx context.Context, tx bun.IDB, id string) (bool, error) {
	var taken bool
	err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM humans WHERE id = ?)`, id).Scan(ctx, &taken)
	return taken, err
}

// idFree refuses an id already used in table (ids are global across
// organizations).
func idFree(ctx context.Context, tx bun.IDB, table, id, what string) error {
	var n int
	if err := tx.NewRaw(`SELECT count(*) FROM `+table+` WHERE id = ?`, id).Scan(ctx, &n); err != nil {
		return fmt.Errorf("identity.idFree: %w", err)
	}
	if n > 0 {
		return errs.E(errs.IDTaken, "%s id %s is already taken", what, id)
	}
	return nil
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
