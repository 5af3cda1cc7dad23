package board_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/board"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// world is the board on kerneltest's World: the Office (ana owner, val
// approver, vic viewer; projects web, api and prod) and the agents code-web,
// chat-web (web and api), runner-web (3 runs, 100 turns) and gemini-web,
// each with 3 delegations; agents call tools over real MCP, people the
// Admin API.
type world struct {
	*kerneltest.World
	board *board.Module
}

// newWorld registers extra modules, then the board.
func newWorld(t *testing.T, extra ...kernel.Module) *world {
	t.Helper()
	return newWorldOf(t, board.New(), extra...)
}

// newWorldOf is newWorld with the board module b.
func newWorldOf(t *testing.T, b *board.Module, extra ...kernel.Module) *world {
	t.Helper()
	return newWorldWith(t, kerneltest.Options{}, b, extra...)
}

// newWorldWith is newWorldOf with the kernel's opts (events always on).
func newWorldWith(t *testing.T, opts kerneltest.Options, b *board.Module, extra ...kernel.Module) *world {
	t.Helper()
	opts.Events = true
	w := &world{World: kerneltest.New(t, opts, append(extra, b)...), board: b}
	w.Office()
	w.agent("code-web", "code", nil, "web")
	w.agent("chat-web", "chat", nil, "web", "api")
	w.agent("runner-web", "runner", map[string]float64{"runs": 3, "turns": 100}, "web")
	w.agent("gemini-web", "gemini", nil, "web")
	return w
}

func (w *world) agent(id, client string, limits map[string]float64, projects ...string) {
	w.Agent("ana", kerneltest.AgentInput{ID: id, Client: client, Projects: projects, Limits: limits, Delegations: ptr(3)})
}

// post posts a task as agent under its root mandate and returns its id.
func (w *world) post(agent, project, title string, extra map[string]any) string {
	w.T.Helper()
	args := map[string]any{"project_id": project, "title": title, "mandate_id": w.Root(agent)}
	for k, v := range extra {
		args[k] = v
	}
	return w.OK(agent, "pact_post", args)["task_id"].(string)
}

// acme adds organization acme behind the services' back: its owner bo, its
// project rocket, its agent code-rocket with a mandate, and a task waiting
// for approval with one message. It returns the task.
func (w *world) acme() string {
	const task = "11111111-1111-4111-8111-111111111111"
	w.Exec(`INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');
		INSERT INTO agents (id, org_id, owner, client) VALUES ('code-rocket', 'acme', 'bo', 'code');
		INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('code-rocket', 'rocket', 'acme');
		INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth, expires_at, signature)
			VALUES ('22222222-2222-4222-8222-222222222222', 'human', 'bo', 'code-rocket', '{task.work@project:rocket}', 1, 0,
				now() + interval '1 day', 'x');
		INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
			VALUES (?, 'rocket', 'Acme secret', 'code-rocket', '22222222-2222-4222-8222-222222222222', 'auth_required');
		INSERT INTO task_messages (org_id, task_id, from_agent, body) VALUES ('acme', ?, 'code-rocket', 'acme words')`,
		task, task)
	w.Project("bo", "launch", false)
	return task
}

// decide is a person's decision on a task over the Admin API; it fails the
// test on anything but 200.
func (w *world) decide(as, taskID, decision, body string) kerneltest.Reply {
	w.T.Helper()
	r := w.Admin(as, "POST", "/tasks/"+taskID+"/"+decision, body)
	require.Equal(w.T, 200, r.Status, "%s %s: %s", as, decision, r.Raw)
	return r
}

func ptr[T any](v T) *T { return &v }
