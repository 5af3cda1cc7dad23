package people

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

type invitationsOut struct {
	Body struct {
		Invitations []PendingInvitation `json:"invitations" nullable:"false"`
	}
}

type acceptIn struct {
	HumanID string `path:"human_id" pattern:"^[a-z0-9][a-z0-9._-]{0,62}$"`
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
	out := &invitationsOut{}
	out.Body.Invitations, err = m.svc.Invitations(ctx, email)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *Module) acceptInvitation(ctx context.Context, in *acceptIn) (*acceptedOut, error) {
	acct, email, err := verifiedEmail(ctx)
	if err != nil {
		return nil, err
	}
	a, err := m.svc.AcceptInvitation(ctx, acct.Issuer, acct.Subject, email, in.HumanID)
	if err != nil {
		return nil, err
	}
	return &acceptedOut{Body: *a}, nil
}
