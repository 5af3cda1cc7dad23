package mcpserve

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// Authenticator decides whether a bearer token may act as an agent. The
// agent token ([AgentTokens]) is the one credential today; OAuth sign-ins
// (the Admin API issue) will be a second implementation, tried for tokens
// that are not agent tokens.
type Authenticator interface {
	// Authenticate returns nil when token may act as agent. Refusals:
	// unauthorized (401 with error="invalid_token"; the message is shown)
	// when the token is not accepted, forbidden (403) when it is valid but
	// its holder may not use this agent. Any other error is a failure (500,
	// logged).
	Authenticate(ctx context.Context, agent, token string) error
}

// AgentTokens accepts a live pact_… token issued to the agent itself
// (docs/specs/behavior.md §9.2). The agent's status is not checked here: the tool
// gate refuses paused and banned agents with their own code.
type AgentTokens struct {
	Identity *identity.Service
	DB       bun.IDB
}

// Authenticate implements Authenticator. Refusal: unauthorized "invalid or
// expired agent token" (another agent's token included, so a token reveals
// nothing about other agents).
func (a AgentTokens) Authenticate(ctx context.Context, agent, token string) error {
	ok, err := a.Identity.AuthenticateAgent(ctx, a.DB, agent, token)
	switch {
	case err != nil:
		return errs.Wrap(err, "check agent token")
	case !ok:
		return errs.E(errs.Unauthorized, "invalid or expired agent token")
	}
	return nil
}

func (s *Server) authenticator() Authenticator {
	if s.opts.Auth != nil {
		return s.opts.Auth
	}
	return AgentTokens{Identity: s.opts.Identity, DB: s.opts.DB}
}

// authenticate reports whether r may act as agent, with the grant that
// narrows it when the token is a per-run credential (nil for the agent's
// own credential); when not, it has written the 401 (with its challenge),
// 403 or 500.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, agent string) (*kernel.Grant, bool) {
	token, ok := bearer(r)
	if !ok {
		s.challenge(w, agent, false, "missing bearer token")
		return nil, false
	}
	var grant *kernel.Grant
	var err error
	if strings.HasPrefix(token, kernel.RunTokenPrefix) {
		grant, err = s.grants().VerifyGrant(r.Context(), agent, token)
	} else {
		err = s.authenticator().Authenticate(r.Context(), agent, token)
	}
	switch e, _ := errs.As(err); {
	case err == nil:
		return grant, true
	case e != nil && e.Code == errs.Unauthorized:
		if e.Err != nil { // the issuer's reason, which the caller is not told
			s.opts.Logger.Info("token refused", "agent", agent, "error", err)
		}
		s.challenge(w, agent, true, e.Message)
	case e != nil && e.Code == errs.Forbidden:
		kernel.WriteError(w, http.StatusForbidden, errs.Public(err))
	case r.Context().Err() != nil:
		// The client hung up while its token was checked (a cancelled
		// call's stream, say): no failure of the board's, and nobody to
		// answer.
		s.opts.Logger.Debug("request abandoned by its client", "agent", agent, "error", err)
	default:
		// PostgreSQL down or restarting answers 503 unavailable, which
		// clients retry, rather than 500 (kernel.Public).
		p := kernel.Public(err)
		s.opts.Logger.Error("cannot authenticate", "agent", agent, "error", err)
		kernel.WriteError(w, kernel.AdminStatus(p.Code), p)
	}
	return nil, false
}

// grants verifies per-run credentials; with none configured, each is
// refused.
func (s *Server) grants() kernel.GrantVerifier {
	if s.opts.Grants != nil {
		return s.opts.Grants
	}
	return noGrants{}
}

type noGrants struct{}

func (noGrants) VerifyGrant(context.Context, string, string) (*kernel.Grant, error) {
	return nil, errs.E(errs.Unauthorized, "this board issues no per-run credentials")
}

// bearer returns the token of an "Authorization: Bearer <token>" header;
// the scheme is case-insensitive.
func bearer(r *http.Request) (string, bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// challenge writes a 401 whose WWW-Authenticate points at the agent's
// protected-resource metadata; presented says a token was sent and refused.
func (s *Server) challenge(w http.ResponseWriter, agent string, presented bool, msg string) {
	v := fmt.Sprintf(`Bearer resource_metadata="%s", scope="pact"`, s.metadataURL(agent))
	if presented {
		v += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", v)
	kernel.WriteError(w, http.StatusUnauthorized, errs.E(errs.Unauthorized, "%s", msg))
}
