package kernel

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pactboard/pact/sdk/errs"
)

// RunTokenPrefix starts every per-run credential: a token that acts as its
// agent for one run of one claimed task, narrowed to a list of tools and
// one mandate (docs/runner.md, "The session on the board"). It also starts
// with the agent tokens' "pact_", so a client treats it as one.
const RunTokenPrefix = "pact_run_"

// Grant is what a per-run credential lets its bearer do as its agent: call
// only Tools, each under MandateID, while TaskID stays claimed by the agent
// under the claim the credential was issued for, and until ExpiresAt.
type Grant struct {
	Tools     []string
	MandateID string
	TaskID    string
	ExpiresAt time.Time
}

// Allows reports whether the grant lets its bearer call tool.
func (g *Grant) Allows(tool string) bool { return slices.Contains(g.Tools, tool) }

// GrantVerifier reads the grant of a per-run credential presented for
// agent. Refusal: unauthorized when the token is not a live per-run
// credential of that agent (unknown, expired, or its run is over: the task
// was reported, deferred, released or claimed anew).
type GrantVerifier interface {
	VerifyGrant(ctx context.Context, agent, token string) (*Grant, error)
}

// grants forwards to the module that issues per-run credentials; with
// none, every such token is refused.
type grants struct {
	mu       sync.Mutex
	provider GrantVerifier
}

func (g *grants) VerifyGrant(ctx context.Context, agent, token string) (*Grant, error) {
	g.mu.Lock()
	p := g.provider
	g.mu.Unlock()
	if p == nil {
		return nil, errs.E(errs.Unauthorized, "this board issues no per-run credentials")
	}
	return p.VerifyGrant(ctx, agent, token)
}

// ProvideGrants makes v the verifier of per-run credentials; call it at
// start-up.
func (h *Host) ProvideGrants(v GrantVerifier) {
	h.k.seams.grants.mu.Lock()
	defer h.k.seams.grants.mu.Unlock()
	h.k.seams.grants.provider = v
}

// Grants returns the verifier of per-run credentials, asked at call time.
func (h *Host) Grants() GrantVerifier { return h.k.seams.grants }

type grantKey struct{}

// WithGrant returns ctx carrying g: the call is made with a per-run
// credential, and Tools.Call holds it to g.
func WithGrant(ctx context.Context, g *Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// GrantFrom returns the grant ctx carries, or nil for a call made with the
// agent's own credential.
func GrantFrom(ctx context.Context) *Grant {
	g, _ := ctx.Value(grantKey{}).(*Grant)
	return g
}

// underGrant holds a call to g: a tool g does not list is refused
// (forbidden), and a tool that acts under a mandate acts under g's, filled
// in when the call names none and refused when it names another. It
// returns the arguments the call runs with.
func underGrant(g *Grant, t *Tool, args json.RawMessage) (json.RawMessage, error) {
	if !g.Allows(t.Name) {
		return args, errs.E(errs.Forbidden, "this run's credential may call only %s; %s is not among them",
			strings.Join(g.Tools, ", "), t.Name)
	}
	if t.MandateArg == "" {
		return args, nil
	}
	var named map[string]json.RawMessage
	if json.Unmarshal(args, &named) != nil || named == nil {
		return args, nil // the schema check refuses it
	}
	raw, ok := named[t.MandateArg]
	if !ok || string(raw) == "null" {
		named[t.MandateArg], _ = json.Marshal(g.MandateID)
		return json.Marshal(named)
	}
	var id string
	if json.Unmarshal(raw, &id) != nil || id != g.MandateID {
		return args, errs.Mandate(errs.Forbidden, g.MandateID,
			"this run's credential acts under mandate %s only; leave %s out or pass that one", g.MandateID, t.MandateArg)
	}
	return args, nil
}
