package people

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Invitations: an owner adds a person with an email (POST /humans); the
// account whose verified email that is sees the invitation here and joins
// only by accepting it. Signing in never binds (docs/security.md, finding 2).

// NoInvitationMessage answers an accept that names no pending invitation
// of the caller's verified email, whatever the reason (missing, another
// address, taken, disabled), so it tells nothing about anyone else.
const NoInvitationMessage = "no pending invitation %s for your verified email; list yours with GET /admin/api/invitations"

// PendingInvitation is an organization's invitation to the caller.
type PendingInvitation struct {
	HumanID   string        `json:"human_id" doc:"The person the account becomes by accepting"`
	Name      string        `json:"name"`
	Role      identity.Role `json:"role" enum:"owner,approver,viewer"`
	Org       OrgBrief      `json:"org"`
	InvitedAt time.Time     `json:"invited_at"`
}

// Accepted is the person an account became, and their organization.
type Accepted struct {
	Human Human    `json:"human"`
	Org   OrgBrief `json:"org"`
}

// Invitations lists the pending invitations of a verified email: each a
// person an owner added with it whom no account has taken yet.
func (s *Service) Invitations(ctx context.Context, email string) ([]PendingInvitation, error) {
	rows, err := s.ident.Invitations(ctx, s.db, email)
	if err != nil {
		return nil, err
	}
	out := make([]PendingInvitation, len(rows))
	for i, r := range rows {
		out[i] = PendingInvitation{HumanID: r.HumanID, Name: r.Name, Role: r.Role,
			Org: OrgBrief{ID: r.OrgID, Name: r.OrgName}, InvitedAt: r.InvitedAt}
	}
	return out, nil
}

// AcceptInvitation makes the account (issuer, sub) person id, if id is a
// pending invitation of the account's verified email, and logs
// admin.human.bind in that person's organization. Refusals:
// already_registered (the account is a person already: one account, one
// person), not_found (NoInvitationMessage). Refusals are not logged: an
// account that is no person has no organization to log them in, and
// logging in the invitation's would tell its owners who probed.
func (s *Service) AcceptInvitation(ctx context.Context, issuer, sub, email, id string) (*Accepted, error) {
	var out *Accepted
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := lockAccount(ctx, tx, issuer, sub); err != nil {
			return err
		}
		if p, err := s.ident.AccountPerson(ctx, tx, issuer, sub); err != nil || p != nil {
			if err == nil {
				err = errs.E(errs.AlreadyRegistered, "this account is already %s of organization %s; an account is one person", p.ID, p.OrgID)
			}
			return err
		}
		p, err := s.ident.AcceptInvitation(ctx, tx, id, email, issuer, sub)
		if err != nil {
			return err
		}
		if p == nil {
			return errs.E(errs.NotFound, NoInvitationMessage, id)
		}
		if _, err := s.log.Append(ctx, tx, ledger.Entry{Actor: "human:" + p.ID, Action: "admin.human.bind", OrgID: p.OrgID,
			Payload: map[string]any{"human_id": p.ID, "issuer": issuer, "via": "invitation"}}); err != nil {
			return err
		}
		o, err := s.ident.GetOrg(ctx, tx, p.OrgID)
		if err != nil {
			return err
		}
		out = &Accepted{Human: human(p), Org: OrgBrief{ID: o.ID, Name: o.Name, Halted: o.Halted}}
		return nil
	})
	return out, err
}
