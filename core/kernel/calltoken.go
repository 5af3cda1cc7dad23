package kernel

import (
	"context"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
)

// A transport may leave a tool call's agent token unchecked and hand it to
// the call instead (WithAgentToken): the pipeline then checks it in the
// gate's statement, in the call's first round trip, rather than in an
// exchange of its own before it (docs/benchmarks.md, "Round trips"). A
// token that is not a live token of the agent ends the call with
// identity.ErrTokenRefused before anything else is read, written or
// logged, and the transport answers as to any refused token.

type agentTokenKey struct{}

// WithAgentToken returns ctx carrying the caller's agent token, not yet
// checked, for Tools.Call to check.
func WithAgentToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, agentTokenKey{}, token)
}

// agentTokenFrom returns the unchecked token WithAgentToken attached.
func agentTokenFrom(ctx context.Context) (string, bool) {
	token, ok := ctx.Value(agentTokenKey{}).(string)
	return token, ok
}

// authenticatedApart checks an unchecked token in a round trip of its own,
// for the calls that refuse, log or wait before their gate: nothing of
// the call runs until the token is known to be the agent's.
func (r *Tools) authenticatedApart(ctx context.Context, agent, token string) error {
	if r.identity == nil {
		return identity.ErrTokenRefused
	}
	ok, err := r.identity.AuthenticateAgent(ctx, r.db, agent, token)
	switch {
	case err != nil:
		return err
	case !ok:
		return identity.ErrTokenRefused
	}
	return nil
}

// admitStep is the gate's statement of a call, with the token's check
// when the call carries an unchecked one.
func (r *Tools) admitStep(ctx context.Context, agent string) (db.Step, func() (*identity.Caller, error)) {
	token, unchecked := agentTokenFrom(ctx)
	switch {
	case !unchecked:
		return identity.AdmitStep(agent)
	case r.identity == nil: // nothing can check it: refused, never admitted unchecked
		step, _ := identity.AdmitStep(agent)
		return step, func() (*identity.Caller, error) { return nil, identity.ErrTokenRefused }
	}
	return r.identity.AdmitTokenStep(agent, token)
}

// ChecksAgentTokens reports whether calls may carry their agent token
// unchecked (WithAgentToken): the registry has the identity service that
// checks them.
func (r *Tools) ChecksAgentTokens() bool { return r.identity != nil }
