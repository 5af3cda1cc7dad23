package mcpserve

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/auth"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// OAuth accepts agent tokens (through Tokens) and, for any other bearer
// token, an OAuth access token from the board's issuer whose signed-in
// person owns the agent, whatever its client: Claude apps sign in this way,
// and a person may run their own Claude Code, Gemini CLI or Runner so too
// (docs/specs/behavior.md §9.2–9.3 set no other condition). The token's
// audience must be the agent's URL or the board's.
type OAuth struct {
	Tokens    AgentTokens
	Issuer    auth.Issuer // nil: OAuth is not configured
	Identity  *identity.Service
	DB        bun.IDB
	PublicURL string
}

// Authenticate implements Authenticator. Refusals: unauthorized (the token
// is not accepted, or its person is not registered or disabled), forbidden
// "you are not the owner of agent X" (also for an agent that does not
// exist, so the answer reveals nothing).
func (o OAuth) Authenticate(ctx context.Context, agent, token string) error {
	if strings.HasPrefix(token, identity.TokenPrefix) {
		return o.Tokens.Authenticate(ctx, agent, token)
	}
	if o.Issuer == nil {
		return errs.E(errs.Unauthorized, "OAuth is not configured on this board; use the agent's pact_ token")
	}
	id, err := o.Issuer.Verify(ctx, authissuer.VerifyRequest{Token: token,
		Audiences: []string{o.PublicURL + "/mcp/a/" + agent, o.PublicURL}})
	if err != nil {
		if errs.CodeOf(err) == errs.Unavailable {
			return err
		}
		return auth.NotAccepted(err)
	}
	// docs/specs/behavior.md §9.3: a token that names scopes must name pact.
	if id.Scope != "" && !slices.Contains(strings.Fields(id.Scope), "pact") {
		return errs.E(errs.Unauthorized, "the access token's scope does not include pact; sign in asking for scope pact")
	}
	email := ""
	if id.EmailVerified {
		email = id.Email
	}
	p, err := o.Identity.SignIn(ctx, id.Issuer, id.Subject, email)
	switch errs.CodeOf(err) {
	case "":
	case errs.NotRegistered:
		return errs.E(errs.Unauthorized, "this account is not a registered person on the board")
	case errs.AccountDisabled:
		return errs.E(errs.Unauthorized, "this account is disabled on the board")
	default:
		return err
	}
	owner, _, err := identity.AgentOwner(ctx, o.DB, agent)
	if err != nil && errs.CodeOf(err) != errs.NotFound {
		return errs.Wrap(err, "find agent owner")
	}
	if err != nil || owner != p.ID {
		return errs.E(errs.Forbidden, "you are not the owner of agent %s", agent)
	}
	return nil
}
