// Package auth turns the bearer token on an Admin API request into the
// person it names (docs/specs/behavior.md §9.3, §10.6). Tokens are OAuth access tokens
// from the board's issuer, verified by an auth issuer plugin; agent tokens
// (pact_…) never open the Admin API.
package auth

import (
	"context"
	"slices"
	"strings"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// Issuer verifies access tokens. core/pluginhost's Host.Issuer(name)
// satisfies it, with the auth-oidc plugin behind it.
type Issuer interface {
	// Verify returns what a valid token says; errs.Unauthorized with the
	// reason for a bad one, errs.Unavailable when the issuer cannot be asked.
	Verify(ctx context.Context, r authissuer.VerifyRequest) (*authissuer.Identity, error)
}

// Options configure an Admin authenticator.
type Options struct {
	// Issuer verifies tokens; nil refuses every token ("OAuth is not
	// configured").
	Issuer Issuer
	// Audience is PACT_ADMIN_AUDIENCE (boot.Config.AdminAudience): tokens
	// minted for anything else, agent URLs included, are refused.
	Audience string
	// RequireMFA is PACT_ADMIN_REQUIRE_MFA: the token's amr must contain
	// "mfa".
	RequireMFA bool
}

// Admin authenticates people on the Admin API.
type Admin struct {
	issuer     Issuer
	people     *identity.Service
	audience   string
	requireMFA bool
}

// NewAdmin returns the Admin API's authenticator; people matches verified
// accounts to persons.
func NewAdmin(people *identity.Service, opts Options) *Admin {
	return &Admin{issuer: opts.Issuer, people: people, audience: opts.Audience, requireMFA: opts.RequireMFA}
}

// Verify checks the Authorization header of an Admin API request and
// returns the account it proves, whether or not it is a person of the
// board (sign-up needs that). Refusals: unauthorized, with the reason (no
// bearer token, an agent token, a token the issuer refuses, no second
// factor); unavailable when the issuer cannot be asked.
func (a *Admin) Verify(ctx context.Context, authorization string) (*authissuer.Identity, error) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(authorization), " ")
	token = strings.TrimSpace(token)
	switch {
	case !strings.EqualFold(scheme, "Bearer") || token == "":
		return nil, errs.E(errs.Unauthorized, "send a person's OAuth access token: Authorization: Bearer <token>")
	case strings.HasPrefix(token, identity.TokenPrefix):
		return nil, errs.E(errs.Unauthorized, "the Admin API takes a person's OAuth token, not an agent token")
	case a.issuer == nil:
		return nil, errs.E(errs.Unauthorized, "OAuth is not configured on this board (PACT_AUTH_ISSUER)")
	case a.audience == "":
		return nil, errs.E(errs.Unauthorized, "the Admin API has no audience configured (PACT_ADMIN_AUDIENCE)")
	}
	id, err := a.issuer.Verify(ctx, authissuer.VerifyRequest{Token: token, Audiences: []string{a.audience}})
	if err != nil {
		if errs.CodeOf(err) == errs.Unavailable {
			return nil, err
		}
		// The issuer's refusals, and its other answers (a bad request,
		// an internal failure), all mean the token proves nothing.
		return nil, NotAccepted(err)
	}
	// The issuer checked the audience; checking again costs nothing and
	// keeps a lax plugin from opening the Admin API to agent-URL tokens.
	if !slices.Contains(id.Audience, a.audience) {
		return nil, errs.E(errs.Unauthorized, "this token was not minted for the Admin API")
	}
	if a.requireMFA && !slices.Contains(id.AMR, "mfa") {
		return nil, errs.E(errs.Unauthorized, "the Admin API needs a sign-in with a second factor")
	}
	return id, nil
}

// NotAccepted is the refusal a caller who has not signed in gets for a token
// the issuer refused: it says nothing the issuer said (its URL, the
// audiences it checked, its keys), only what to do. The issuer's reason is
// the error's cause, for the board's log (docs/security.md, finding 12).
func NotAccepted(cause error) error {
	return &errs.Error{Code: errs.Unauthorized, Message: "the access token was not accepted; sign in again", Err: cause}
}

// Authenticate returns the person the request's token names: Verify, then
// identity.SignIn (by issuer and subject, else by the verified email, bound
// once). Refusals: Verify's; not_registered; account_disabled.
func (a *Admin) Authenticate(ctx context.Context, authorization string) (*identity.Person, error) {
	id, err := a.Verify(ctx, authorization)
	if err != nil {
		return nil, err
	}
	email := ""
	if id.EmailVerified {
		email = id.Email
	}
	return a.people.SignIn(ctx, id.Issuer, id.Subject, email)
}
