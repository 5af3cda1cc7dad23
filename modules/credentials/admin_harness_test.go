package credentials_test

import (
	"testing"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/credentials"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// board is the credentials module on kerneltest's World, built with the
// World's keyring; people sign in over the Admin API with MFA required.
type board struct {
	*kerneltest.World
	mod *credentials.Module
}

// newBoard makes, in organization default, ana (owner), val (approver)
// and vic (viewer) with the project web; in organization acme, bo (owner)
// with the project rocket. Each has the email <id>@example.com. No
// credential plugin is configured.
func newBoard(t *testing.T) *board { return build(t, nil, noPlugins{}) }

// build is newBoard with the environment env and the credential plugins.
func build(t *testing.T, env map[string]string, plugins credentials.Plugins) *board {
	t.Helper()
	b := &board{}
	b.World = kerneltest.New(t, kerneltest.Options{Env: env, NoMCP: true, Modules: func(w *kerneltest.World) []kernel.Module {
		b.mod = credentials.New(credentials.Options{Plugins: plugins, Keys: w.Mandates.Keys()})
		return []kernel.Module{b.mod}
	}})
	b.Person("", "ana", identity.Owner)
	b.Person("ana", "val", identity.Approver)
	b.Person("ana", "vic", identity.Viewer)
	b.Project("ana", "web", false)
	b.Org("acme", "bo")
	b.Project("bo", "rocket", false)
	return b
}

// withAgents adds the code agents reg-web and hired-web (of web) and, in
// acme, the code agent rocket-bot (of rocket).
func withAgents(t *testing.T, b *board) {
	t.Helper()
	for _, id := range []string{"reg-web", "hired-web"} {
		b.Agent("ana", kerneltest.AgentInput{ID: id, Client: "code", Projects: []string{"web"}})
	}
	b.Agent("bo", kerneltest.AgentInput{ID: "rocket-bot", Client: "code", Projects: []string{"rocket"}})
}
