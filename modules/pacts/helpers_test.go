package pacts_test

import (
	"strings"
	"testing"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/pacts"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// fixture is the pacts module on a board with ana (owner), vic (viewer),
// the projects web and ops, and the agents wanda (web, ana's), bram (web,
// ana's), olga (ops only) and vera (web, vic's).
type fixture struct {
	*kerneltest.World
	mod   *pacts.Module
	roots map[string]string
}

func setup(t *testing.T) *fixture { return setupWith(t, kerneltest.Options{}, pacts.Options{}) }

// setupWith is setup with the World's and the module's options.
func setupWith(t *testing.T, world kerneltest.Options, opts pacts.Options) *fixture {
	f := &fixture{mod: pacts.New(opts), roots: map[string]string{}}
	f.World = kerneltest.New(t, world, f.mod)
	f.Person("", "ana", identity.Owner)
	f.Person("ana", "vic", identity.Viewer)
	f.Project("ana", "web", false)
	f.Project("ana", "ops", false)
	for _, a := range []struct{ id, owner, project string }{
		{"wanda", "ana", "web"}, {"bram", "ana", "web"}, {"olga", "ana", "ops"}, {"vera", "vic", "web"},
	} {
		f.Agent("ana", kerneltest.AgentInput{ID: a.id, Client: "code", Projects: []string{a.project}, Owner: a.owner})
		f.roots[a.id] = f.Root(a.id)
	}
	return f
}

// as calls tool as agent with its root mandate added to args.
func (f *fixture) as(agent, tool string, args map[string]any) (map[string]any, error) {
	if _, ok := args["mandate_id"]; !ok {
		args["mandate_id"] = f.roots[agent]
	}
	return f.Call(agent, tool, args)
}

// pact starts a pact in web by wanda (prefix W) with bram invited (B) and
// joined, and returns its id.
func (f *fixture) pact(t *testing.T) string {
	t.Helper()
	out, err := f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Launch", "purpose": "Ship the launch page\nwith copy",
		"rules": "Be brief.", "prefix": "W", "invite": []any{map[string]any{"key": "@bram", "prefix": "B"}}})
	if err != nil {
		t.Fatalf("create_pact: %v", err)
	}
	id := out["pact_id"].(string)
	if _, err := f.as("bram", pacts.ToolJoin, map[string]any{"pact_id": id}); err != nil {
		t.Fatalf("join_pact: %v", err)
	}
	return id
}

// textOf is a text of n characters and more than n bytes (é is two bytes,
// ✓ three), for limits counted in characters: a check counting bytes
// refuses it.
func textOf(n int) string { return strings.Repeat("é", n-1) + "✓" }
