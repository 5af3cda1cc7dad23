package kernel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// echoTool answers the arguments it ran with; it acts under the mandate
// its mandate_id names.
func echoTool() kernel.Tool {
	return kernel.Tool{
		Name: "demo_echo", Effect: kernel.Reads, Title: "Echo", Description: "Answers the arguments it ran with.", MandateArg: "mandate_id",
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"mandate_id": {Types: []string{"string", "null"}}, "note": {Type: "string"},
		}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		Run: func(_ context.Context, c *kernel.Call) (any, error) {
			var args map[string]any
			return args, json.Unmarshal(c.Args, &args)
		},
	}
}

// A call made with a per-run credential (docs/runner.md) is held to its
// grant before the gate: a tool the grant does not list is refused, and
// a tool that acts under a mandate acts under the grant's, filled in when
// the call names none (or null), refused when it names another, or names
// it as anything but a string. A tool with no mandate argument runs with
// its arguments as they came. Each refusal is logged and changes nothing.
func TestACallUnderAGrantIsHeldToIt(t *testing.T) {
	d, r := toolFixture(t)
	require.NoError(t, r.Add(echoTool()))
	entries := func() int { return snapshot(t, d).Entries }
	ctx := kernel.WithGrant(context.Background(), &kernel.Grant{Tools: []string{"demo_echo"}, MandateID: "m-1"})

	_, err := r.Call(ctx, "code-web", "demo_freeze", nil)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	require.ErrorContains(t, err, "this run's credential may call only demo_echo; demo_freeze is not among them")
	require.False(t, snapshot(t, d).Frozen, "the refused body never ran")
	require.Equal(t, 1, entries())

	for args, want := range map[string]map[string]any{
		`{"note": "a"}`:                     {"note": "a", "mandate_id": "m-1"},
		`{"note": "b", "mandate_id": null}`: {"note": "b", "mandate_id": "m-1"},
		`{"mandate_id": "m-1"}`:             {"mandate_id": "m-1"},
	} {
		out, err := r.Call(ctx, "code-web", "demo_echo", json.RawMessage(args))
		require.NoError(t, err, args)
		require.Equal(t, want, out, args)
	}
	require.Equal(t, 4, entries())

	for _, args := range []string{`{"mandate_id": "m-2"}`, `{"mandate_id": 7}`} {
		_, err := r.Call(ctx, "code-web", "demo_echo", json.RawMessage(args))
		require.Equal(t, errs.Forbidden, errs.CodeOf(err), args)
		require.ErrorContains(t, err, "this run's credential acts under mandate m-1 only; leave mandate_id out or pass that one")
	}
	require.Equal(t, 6, entries(), "each refusal is logged")
	out, err := r.Call(ctx, "code-web", "demo_echo", json.RawMessage(`null`))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"mandate_id": "m-1"}, out, "no arguments at all act under the grant's mandate too")
	// Arguments that are no object are left to the schema check (null is
	// no arguments, {}, before the grant sees them).
	for _, args := range []string{`[1]`, `"text"`} {
		_, err := r.Call(ctx, "code-web", "demo_echo", json.RawMessage(args))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), args)
	}

	both := kernel.WithGrant(context.Background(), &kernel.Grant{Tools: []string{"demo_echo", "demo_freeze"}, MandateID: "m-1"})
	out, err = r.Call(both, "code-web", "demo_freeze", json.RawMessage(`{}`))
	require.NoError(t, err, "a tool with no mandate argument runs with the arguments as they came")
	require.Equal(t, map[string]string{"agent": "code-web", "org": "default"}, out)
	require.True(t, snapshot(t, d).Frozen)
}

// grantsFunc is a verifier of per-run credentials that knows one token.
type grantsFunc func(agent, token string) (*kernel.Grant, error)

func (f grantsFunc) VerifyGrant(_ context.Context, agent, token string) (*kernel.Grant, error) {
	return f(agent, token)
}

// The kernel asks the module that issues per-run credentials at call time;
// a board where none does refuses every such token, saying so.
func TestGrantsAreVerifiedByTheModuleThatIssuesThem(t *testing.T) {
	var none, some kernel.GrantVerifier
	require.NoError(t, kernel.New(kernel.Deps{}).Register(moduleFunc{"plain", func(h *kernel.Host) error {
		none = h.Grants()
		return nil
	}}))
	_, err := none.VerifyGrant(context.Background(), "code-web", "pcr_x")
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
	require.ErrorContains(t, err, "this board issues no per-run credentials")

	require.NoError(t, kernel.New(kernel.Deps{}).Register(moduleFunc{"runs", func(h *kernel.Host) error {
		some = h.Grants() // asked at call time: provided after it was handed out
		h.ProvideGrants(grantsFunc(func(agent, token string) (*kernel.Grant, error) {
			if agent == "code-web" && token == "pcr_live" {
				return &kernel.Grant{Tools: []string{"pact_report"}, MandateID: "m-1"}, nil
			}
			return nil, errs.E(errs.Unauthorized, "not a live per-run credential")
		}))
		return nil
	}}))
	g, err := some.VerifyGrant(context.Background(), "code-web", "pcr_live")
	require.NoError(t, err)
	require.Equal(t, "m-1", g.MandateID)
	_, err = some.VerifyGrant(context.Background(), "code-web", "pcr_dead")
	require.ErrorContains(t, err, "not a live per-run credential")
}
