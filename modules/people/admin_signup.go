package people

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

type signupIn struct {
	Body struct {
		OrgName      string `json:"org_name" maxLength:"200" example:"Acme"`
		DisplayName  string `json:"display_name" maxLength:"200" example:"Ana Ruiz"`
		AcceptTerms  bool   `json:"accept_terms" doc:"Must be true"`
		TermsVersion string `json:"terms_version" maxLength:"200" example:"2026-01"`
	}
}

type signedUpOut struct{ Body SignedUp }

func (m *Module) registerSignup(api huma.API) {
	o := huma.Operation{OperationID: "people-signup", Method: http.MethodPost, Path: "/signup",
		Summary: "Sign up: make an organization and become its owner (PACT_SIGNUP_ENABLED)",
		Description: "Takes a signed-in account that is no person of the board yet. Invitations play no part: " +
			"an invited account joins an organization only by accepting its invitation (accept-invitation).",
		Tags: []string{"people"}, MaxBodyBytes: maxBody, DefaultStatus: http.StatusCreated,
		Security: kernel.AdminSecurity(),
		Errors: []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusConflict,
			http.StatusTooManyRequests},
		Metadata:   map[string]any{kernel.MetaPublic: true},
		Extensions: map[string]any{kernel.LeastRoleExtension: kernel.AnyAccount},
		// The token is checked before the body, so a caller without one
		// learns nothing about the request.
		Middlewares: huma.Middlewares{m.verifyAccount}}
	huma.Register(api, o, m.signup)
	huma.Register(api, huma.Operation{OperationID: "people-signup-status", Method: http.MethodGet, Path: "/signup",
		Summary: "Whether sign-up is open on this board (PACT_SIGNUP_ENABLED)",
		Description: "Takes a signed-in account, person or not, as sign-up does: the console offers its form only " +
			"when this says open.",
		Tags: []string{"people"}, Security: kernel.AdminSecurity(),
		Errors:      []int{http.StatusBadRequest, http.StatusUnauthorized},
		Metadata:    map[string]any{kernel.MetaPublic: true},
		Extensions:  map[string]any{kernel.LeastRoleExtension: kernel.AnyAccount},
		Middlewares: huma.Middlewares{m.verifyAccount}}, m.signupStatus)
}

// SignupStatus says whether the board takes sign-ups.
type SignupStatus struct {
	Open bool `json:"open" doc:"Sign-up is on (PACT_SIGNUP_ENABLED); the hourly circuit breaker may still refuse one"`
}

type signupStatusOut struct{ Body SignupStatus }

// signupStatus answers any signed-in account: the setting is no secret to
// one, and the console must not offer a form the board would refuse.
func (m *Module) signupStatus(ctx context.Context, _ *struct{}) (*signupStatusOut, error) {
	if acct, _ := ctx.Value(accountKey{}).(*authissuer.Identity); acct == nil {
		return nil, errs.E(errs.Unauthorized, "send a person's OAuth access token: Authorization: Bearer <token>")
	}
	return &signupStatusOut{Body: SignupStatus{Open: m.cfg.SignupEnabled}}, nil
}

type accountKey struct{}

// verifyAccount checks the request's token (auth.Admin.Verify: no person
// needed), or the console session's in its place, and hands the account
// to signup and the invitations.
func (m *Module) verifyAccount(ctx huma.Context, next func(huma.Context)) {
	acct, err := m.sessions.Account(ctx.Context(), ctx.Method(), ctx.Header,
		func(c string) { ctx.AppendHeader("Set-Cookie", c) })
	if err == nil && acct == nil {
		acct, err = m.verifier.Verify(ctx.Context(), ctx.Header("Authorization"))
	}
	if err != nil {
		ae := kernel.ToAdminError(err)
		if ae.GetStatus() == http.StatusUnauthorized {
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="PACT Board Admin API"`)
		}
		ctx.SetHeader("Content-Type", "application/json")
		ctx.SetStatus(ae.GetStatus())
		_ = json.NewEncoder(ctx.BodyWriter()).Encode(ae)
		return
	}
	next(huma.WithValue(ctx, accountKey{}, acct))
}

// signup authenticates its caller itself (the gate wants a person; this
// caller is not one yet) and hands the account to SignUp.
func (m *Module) signup(ctx context.Context, in *signupIn) (*signedUpOut, error) {
	acct, _ := ctx.Value(accountKey{}).(*authissuer.Identity)
	if acct == nil {
		return nil, errs.E(errs.Unauthorized, "send a person's OAuth access token: Authorization: Bearer <token>")
	}
	email := ""
	if acct.EmailVerified {
		email = acct.Email
	}
	b := in.Body
	s, err := m.svc.SignUp(ctx, SignUpPolicy{Enabled: m.cfg.SignupEnabled, MaxPerHour: m.cfg.SignupMaxPerHour},
		SignUpInput{Issuer: acct.Issuer, Subject: acct.Subject, VerifiedEmail: email, OrgName: b.OrgName,
			DisplayName: b.DisplayName, AcceptTerms: b.AcceptTerms, TermsVersion: b.TermsVersion})
	if err != nil {
		return nil, err
	}
	return &signedUpOut{Body: *s}, nil
}
