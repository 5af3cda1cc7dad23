package kernel_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// heldModule registers demo_held: a call that waits 30 seconds for an
// event that never comes, then acts under the mandate its mandate_id
// names, verifying it as the board's tools do.
type heldModule struct{}

func (heldModule) Name() string { return "held" }

func (heldModule) Register(h *kernel.Host) error {
	hub, mandates := h.Events(), h.Mandates()
	return h.Tool(kernel.Tool{
		Name: "demo_held", Effect: kernel.Reads, Title: "Held", Description: "Waits 30 s, then answers.", MandateArg: "mandate_id",
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"mandate_id": {Type: "string"}},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		Wait: func(context.Context, string, json.RawMessage) (*events.Wait, error) {
			return hub.NewWait(func(events.Event) bool { return false }, 30*time.Second,
				func(context.Context) (bool, error) { return false, nil }, nil), nil
		},
		Run: actsUnderItsMandate(mandates, "answered"),
	})
}

// actsUnderItsMandate is a body that verifies the mandate its call's
// mandate_id names, if it names one, as the board's tools do, then
// answers {said: true}.
func actsUnderItsMandate(mandates *mandate.Service, said string) func(context.Context, *kernel.Call) (any, error) {
	return func(ctx context.Context, c *kernel.Call) (any, error) {
		var in struct {
			MandateID string `json:"mandate_id"`
		}
		_ = json.Unmarshal(c.Args, &in)
		if in.MandateID != "" {
			if _, err := mandates.Verify(ctx, c.Tx, in.MandateID, c.AgentID); err != nil {
				return nil, err
			}
		}
		return map[string]bool{said: true}, nil
	}
}

type heldResult struct {
	out any
	err error
}

// A held wait ends as soon as a stop changes its own agent's standing
// (docs/security.md, "A stop reaches every channel"), and the call then
// answers as the agent may now: its pause refuses it (agent_paused), the
// revocation of the mandate it names refuses it (mandate_revoked), its
// leaving a project it was in answers at once. A stop of another agent's,
// or the revocation of another mandate of its own, leaves the wait alone.
func TestAStopEndsAHeldWaitOfItsOwnAgentOnly(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{Events: true, NoMCP: true}, heldModule{})
	w.Person("", "ana", identity.Owner)
	w.Project("ana", "web", false)
	w.Project("ana", "api", false)
	w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web", "api"}})
	w.Agent("ana", kerneltest.AgentInput{ID: "code-api", Client: "code", Projects: []string{"api"}})
	root := w.Root("code-web")
	hold := func(args map[string]any) <-chan heldResult {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		before := w.Kernel.Tools().Waiting()
		done := make(chan heldResult, 1)
		go func() {
			out, err := w.Kernel.Tools().Call(context.Background(), "code-web", "demo_held", raw)
			done <- heldResult{out, err}
		}()
		require.Eventually(t, func() bool { return w.Kernel.Tools().Waiting() == before+1 }, 10*time.Second, 5*time.Millisecond)
		return done
	}
	ended := func(done <-chan heldResult, why string) heldResult {
		t.Helper()
		select {
		case r := <-done:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("the wait did not end at %s", why)
		}
		return heldResult{}
	}
	still := func(done <-chan heldResult, why string) {
		t.Helper()
		select {
		case r := <-done:
			t.Fatalf("the wait ended at %s: %+v", why, r)
		case <-time.After(time.Second):
		}
	}

	second := w.Mandate("ana", "code-web", "task.read@project:web")
	named := hold(map[string]any{"mandate_id": root})
	w.Exec(`UPDATE agents SET status = 'paused' WHERE id = 'code-api'`)
	still(named, "another agent's pause")
	w.Exec(`UPDATE mandates SET revoked_at = now() WHERE id = ?`, second)
	still(named, "the revocation of another mandate of its agent's")
	w.Exec(`UPDATE agents SET status = 'paused' WHERE id = 'code-web'`)
	r := ended(named, "its agent's pause")
	require.Equal(t, errs.AgentPaused, errs.CodeOf(r.err), "%v", r.err)
	w.Exec(`UPDATE agents SET status = 'active' WHERE id = 'code-web'`)

	named = hold(map[string]any{"mandate_id": root})
	w.Exec(`UPDATE mandates SET revoked_at = now() WHERE id = ?`, root)
	r = ended(named, "the revocation of the mandate it names")
	require.Equal(t, errs.MandateRevoked, errs.CodeOf(r.err), "%v", r.err)

	unnamed := hold(map[string]any{})
	w.Exec(`DELETE FROM agent_projects WHERE agent_id = 'code-web' AND project_id = 'api'`)
	r = ended(unnamed, "its leaving a project")
	require.NoError(t, r.err)
	require.Equal(t, map[string]bool{"answered": true}, r.out, "it answers from what the agent may reach now")
}

// actModule registers demo_act: demo_held's body without its wait.
type actModule struct{}

func (actModule) Name() string { return "act" }

func (actModule) Register(h *kernel.Host) error {
	mandates := h.Mandates()
	return h.Tool(kernel.Tool{
		Name: "demo_act", Effect: kernel.Reads, Title: "Act", Description: "Acts under its mandate.", MandateArg: "mandate_id",
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"mandate_id": {Type: "string"}},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		Run: actsUnderItsMandate(mandates, "acted"),
	})
}

// The chain of the mandate a call names is read ahead, with the gate's
// statement (MANDATE-003): the body's Verify costs no round trip of its
// own, so a call naming its mandate makes as many round trips as one
// naming none.
func TestTheNamedMandatesChainRidesWithTheGate(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true}, actModule{})
	w.Person("", "ana", identity.Owner)
	w.Project("ana", "web", false)
	w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	trips := func(args string) int64 {
		before := w.DB.RoundTrips()
		_, err := w.Kernel.Tools().Call(context.Background(), "code-web", "demo_act", json.RawMessage(args))
		require.NoError(t, err)
		return w.DB.RoundTrips() - before
	}
	withRoot := `{"mandate_id": "` + w.Root("code-web") + `"}`
	// Warm: the first use of a statement in a process prepares it, a round
	// trip later calls do not make.
	trips(`{}`)
	trips(withRoot)
	none := trips(`{}`)
	named := trips(withRoot)
	require.Equal(t, none, named, "verifying the named chain cost no round trip of its own")
}
