package people

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/authissuer"
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

type invitationsOut struct {
	Body struct {
		Invitations []PendingInvitation `json:"invitations" nullable:"false"`
	}
}

type acceptIn struct {
	HumanID string `path:"human_id" pattern:"^[a-z0-9][a-z0-9._-]{0,62}$"`
}

// Accepted is the person an account became, and their organization.
type Accepted struct {
	Human Human    `json:"human"`
	Org   OrgBrief `json:"org"`
}

type acceptedOut struct{ Body Accepted }

func (m *Module) registerInvitations(api huma.API) {
	account := func(o huma.Operation) huma.Operation {
		o.Tags, o.MaxBodyBytes = []string{"people"}, maxBody
		o.Security = kernel.AdminSecurity()
		o.Metadata = map[string]any{kernel.MetaPublic: true}
		o.Extensions = map[string]any{kernel.LeastRoleExtension: kernel.AnyAccount}
		// The token is checked first: without one, nothing is said.
		o.Middlewares = huma.Middlewares{m.verifyAccount}
		return o
	}
	huma.Register(api, account(huma.Operation{OperationID: "people-list-invitations", Method: http.MethodGet,
		Path: "/invitations", Summary: "List the invitations of the signed-in account's verified email",
		Description: "Takes a signed-in account, person or not. Each invitation is a person an owner added " +
			"with this email whom no account has taken yet.",
		Errors: []int{http.StatusBadRequest, http.StatusUnauthorized}}), m.listInvitations)
	huma.Register(api, account(huma.Operation{OperationID: "people-accept-invitation", Method: http.MethodPost,
		Path: "/invitations/{human_id}/accept", Summary: "Accept an invitation: the account becomes that person",
		Description: "The only way an account joins an organization someone else made. An account is one person.",
		Errors:      []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusConflict}}),
		m.acceptInvitation)
}

// verifiedEmail is the account's email when its issuer vouched for it.
func verifiedEmail(ctx context.Context) (*authissuer.Identity, string, error) {
	acct, _ := ctx.Value(accountKey{}).(*authissuer.Identity)
	if acct == nil {
		return nil, "", errs.E(errs.Unauthorized, "send a person's OAuth access token: Authorization: Bearer <token>")
	}
	if !acct.EmailVerified || acct.Email == "" {
		return acct, "", errs.E(errs.InvalidRequest, NoVerifiedEmail+"; invitations are matched by verified email")
	}
	return acct, acct.Email, nil
}

func (m *Module) listInvitations(ctx context.Context, _ *struct{}) (*invitationsOut, error) {
	_, email, err := verifiedEmail(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := m.identity.Invitations(ctx, m.db, email)
	if err != nil {
		return nil, err
	}
	out := &invitationsOut{}
	out.Body.Invitations = make([]PendingInvitation, len(rows))
	for i, r := range rows {
		out.Body.Invitations[i] = PendingInvitation{HumanID: r.HumanID, Name: r.Name, Role: r.Role,
			Org: OrgBrief{ID: r.OrgID, Name: r.OrgName}, InvitedAt: r.InvitedAt}
	}
	return out, nil
}

func (m *Module) acceptInvitation(ctx context.Context, in *acceptIn) (*acceptedOut, error) {
	acct, email, err := verifiedEmail(ctx)
	if err != nil {
		return nil, err
	}
	a, err := m.AcceptInvitation(ctx, acct.Issuer, acct.Subject, email, in.HumanID)
	if err != nil {
		return nil, err
	}
	return &acceptedOut{Body: *a}, nil
}

// AcceptInvitation makes the account (issuer, sub) person id, if id is a
// pending invitation of the account's verified email, and logs
// admin.human.bind in that person's organization. Refusals:
// already_registered (the account is a person already: one account, one
// person), not_found (NoInvitationMessage). Refusals are not logged: an
// account that is no person has no organization to log them in, and
// logging in the invitation's would tell its owners who probed.
func (m *Module) AcceptInvitation(ctx context.Context, issuer, sub, email, id string) (*Accepted, error) {
	var out *Accepted
	err := m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := lockAccount(ctx, tx, issuer, sub); err != nil {
			return err
		}
		if p, err := m.identity.AccountPerson(ctx, tx, issuer, sub); err != nil || p != nil {
			if err == nil {
				err = errs.E(errs.AlreadyRegistered, "this account is already %s of organization %s; an account is one person", p.ID, p.OrgID)
			}
			return err
		}
		p, err := m.identity.AcceptInvitation(ctx, tx, id, email, issuer, sub)
		if err != nil {
			return err
		}
		if p == nil {
			return errs.E(errs.NotFound, NoInvitationMessage, id)
		}
		if _, err := m.log.Append(ctx, tx, ledger.Entry{Actor: "human:" + p.ID, Action: "admin.human.bind", OrgID: p.OrgID,
			Payload: map[string]any{"human_id": p.ID, "issuer": issuer, "via": "invitation"}}); err != nil {
			return err
		}
		o, err := m.identity.GetOrg(ctx, tx, p.OrgID)
		if err != nil {
			return err
		}
		out = &Accepted{Human: human(p), Org: OrgBrief{ID: o.ID, Name: o.Name, Halted: o.Halted}}
		return nil
	})
	return out, err
}
