package kernel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// tokenFixture is toolFixture's tools in a kernel with the identity
// service, and a live token of code-web, one of code-new, and one of
// code-web that expired.
func tokenFixture(t *testing.T) (d *db.DB, r *kernel.Tools, live, others, expired string) {
	d, _ = toolFixture(t)
	k := kernel.New(kernel.Deps{DB: d, Log: ledger.New(nil), Identity: identity.NewService(d, ledger.New(nil), nil)})
	r = k.Tools()
	require.NoError(t, r.Add(freezeTool()))
	live, others, expired = "pact_live-of-code-web", "pact_live-of-code-new", "pact_expired-of-code-web"
	_, err := d.ExecContext(context.Background(), `INSERT INTO agent_tokens (token_hash, agent_id, expires_at) VALUES
		(?, 'code-web', now() + interval '1 day'), (?, 'code-new', now() + interval '1 day'),
		(?, 'code-web', now() - interval '1 second')`,
		identity.HashToken(live), identity.HashToken(others), identity.HashToken(expired))
	require.NoError(t, err)
	return d, r, live, others, expired
}

// TestAnUncheckedTokenIsCheckedBeforeAnythingRuns: a call carrying its
// token unchecked (kernel.WithAgentToken) runs only with a live token of
// its own agent; any other token ends it with identity.ErrTokenRefused,
// having written and logged nothing, on every path the call can take: the
// gate's statement, the statement that admits the agent before a wait,
// and the checks made apart for calls that answer or log before their
// gate (an unknown tool, a number refused before any transaction, a
// per-run credential's grant). ID-006.
func TestAnUncheckedTokenIsCheckedBeforeAnythingRuns(t *testing.T) {
	d, r, live, others, expired := tokenFixture(t)
	ctx := context.Background()
	w := &waitTool{}
	require.NoError(t, r.Add(w.tool()))
	underGrant := kernel.WithGrant(ctx, &kernel.Grant{Tools: []string{"demo_wait"}})
	paths := []struct {
		name, tool string
		args       json.RawMessage
		ctx        context.Context
	}{
		{"in the gate", "demo_freeze", nil, ctx},
		{"a refusal before the gate", "demo_freeze", json.RawMessage(`{"refuse": 9007199254740993}`), ctx},
		{"no such tool", "demo_nothing", nil, ctx},
		{"a wait's refusal before the gate", "demo_wait", json.RawMessage(`{"refuse": true}`), ctx},
		{"a grant's refusal before the gate", "demo_freeze", nil, underGrant},
	}
	for _, p := range paths {
		for name, token := range map[string]string{"another agent's": others, "expired": expired,
			"unknown": "pact_nobody", "not an agent token": "eyJhbGciOi.x.y", "empty": ""} {
			_, err := r.Call(kernel.WithAgentToken(p.ctx, token), "code-web", p.tool, p.args)
			require.ErrorIs(t, err, identity.ErrTokenRefused, "%s, %s token", p.name, name)
		}
		_, err := r.Call(kernel.WithAgentToken(p.ctx, others), "code-nobody", p.tool, p.args)
		require.ErrorIs(t, err, identity.ErrTokenRefused, "%s, an agent that does not exist", p.name)
	}
	require.Zero(t, w.prepared.Load(), "no wait was prepared for a refused token")
	s := snapshot(t, d)
	require.False(t, s.Frozen, "no body ran")
	require.Zero(t, s.Entries, "nothing was logged")

	out, err := r.Call(kernel.WithAgentToken(ctx, live), "code-web", "demo_freeze", nil)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"agent": "code-web", "org": "default"}, out)
	_, err = r.Call(kernel.WithAgentToken(ctx, live), "code-web", "demo_freeze", json.RawMessage(`{"refuse": 9007199254740993}`))
	require.Error(t, err)
	require.NotErrorIs(t, err, identity.ErrTokenRefused, "a live token reaches the refusal")
	require.Equal(t, 2, snapshot(t, d).Entries, "the live token's call and its refusal are logged")
}

// TestWithoutTheIdentityServiceAnUncheckedTokenIsRefused: a registry that
// cannot check tokens admits no call that carries one unchecked.
func TestWithoutTheIdentityServiceAnUncheckedTokenIsRefused(t *testing.T) {
	d, r := toolFixture(t)
	require.False(t, r.ChecksAgentTokens())
	_, err := r.Call(kernel.WithAgentToken(context.Background(), "pact_anything"), "code-web", "demo_freeze", nil)
	require.ErrorIs(t, err, identity.ErrTokenRefused)
	require.Zero(t, snapshot(t, d).Entries)
	require.False(t, snapshot(t, d).Frozen)
}
