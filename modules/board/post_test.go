package board_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

func TestWhoami(t *testing.T) {
	w := newWorld(t)
	out := w.OK("code-web", "pact_whoami", nil)
	agent := out["agent"].(map[string]any)
	require.Equal(t, "code-web", agent["id"])
	require.Equal(t, map[string]any{}, agent["preferences"])
	projects := out["projects"].([]any)
	require.Len(t, projects, 1)
	require.Len(t, out["mandates"], 1)
	delegates := out["delegates"].([]any)
	require.Len(t, delegates, 3)
	require.Equal(t, map[string]any{"id": "chat-web", "client": "chat", "projects": []any{"web"}}, delegates[0])
	require.EqualValues(t, 0, out["unread_messages"])
}

func TestPostRefusalsInOrder(t *testing.T) {
	w := newWorld(t)
	root := w.Root("code-web")
	base := func(extra map[string]any) map[string]any {
		a := map[string]any{"project_id": "web", "title": "Fix login", "mandate_id": root}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	w.Refused(errs.ProjectRequired, "code-web", "pact_post", base(map[string]any{"project_id": ""}))
	w.Refused(errs.ChainBroken, "code-web", "pact_post", base(map[string]any{"mandate_id": "nope"}))
	w.Refused(errs.ChainBroken, "code-web", "pact_post", base(map[string]any{"mandate_id": w.Root("chat-web")}))
	w.Refused(errs.ProjectMismatch, "code-web", "pact_post", base(map[string]any{"project_id": "api"}))
	w.Refused(errs.InvalidRequest, "code-web", "pact_post", map[string]any{"project_id": "web"})
	w.Refused(errs.InvalidRequest, "code-web", "pact_post", base(map[string]any{"title": 42}))
	w.Refused(errs.InvalidRequest, "code-web", "pact_post", base(map[string]any{"cost": map[string]any{"usd": -1}}))
	w.Refused(errs.AgentUnknown, "code-web", "pact_post", base(map[string]any{"delegate_to": "ghost"}))
	w.Refused(errs.AgentUnknown, "code-web", "pact_post", base(map[string]any{"delegate_to": "code-web"}))
	w.Refused(errs.ScopeExceeded, "code-web", "pact_post", base(map[string]any{"delegate_to": "gemini-web", "child_scope": []any{"task.work@project:api"}}))
	w.Refused(errs.ProjectMismatch, "code-web", "pact_post", base(map[string]any{"parent_task_id": "00000000-0000-4000-8000-000000000000"}))
	w.Exec(`UPDATE projects SET frozen = true WHERE id = 'web'`)
	w.Refused(errs.ProjectFrozen, "code-web", "pact_post", base(nil))
	w.Exec(`UPDATE projects SET frozen = false WHERE id = 'web'`)

	require.Zero(t, w.Count(`SELECT count(*) FROM tasks`), "refused posts create nothing")
	require.Zero(t, w.Count(`SELECT count(*) FROM mandates WHERE depth > 0`), "nor delegated mandates")
	require.Equal(t, 12, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_post' AND outcome <> 'ok'`))
	w.VerifyLog()
}

func TestPostDelegatesAndNotifies(t *testing.T) {
	w := newWorld(t)
	out := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Summarise the design",
		"mandate_id": w.Root("code-web"), "delegate_to": "chat-web"})
	require.Equal(t, "submitted", out["status"])
	require.NotEmpty(t, out["delegated_mandate_id"])
	require.Contains(t, out["note"], "chat-web starts this when it next pulls work")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'awaiting_session'`))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ?::uuid AND holder = 'chat-web' AND issuer = 'code-web'
		AND scope = '{task.work@project:web,task.read@project:web}'`, out["delegated_mandate_id"]))

	deploy := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Ship it",
		"mandate_id": w.Root("code-web"), "action": "deploy.web"})
	require.Equal(t, "auth_required", deploy["status"])
	require.Contains(t, deploy["note"], "needs a human approval")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'approval_needed' AND detail = 'deploy.web'`))
}

func TestPostSpendsTheTasksBudget(t *testing.T) {
	w := newWorld(t)
	w.agent("runner-api", "runner", map[string]float64{"tasks": 1}, "api")
	args := map[string]any{"project_id": "api", "title": "One", "mandate_id": w.Root("runner-api")}
	w.OK("runner-api", "pact_post", args)
	e := w.Refused(errs.LimitExceeded, "runner-api", "pact_post", args)
	require.Equal(t, w.Root("runner-api"), e.MandateID)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE project_id = 'api'`))
}

func TestDelegatedLimitsCannotExceedTheParent(t *testing.T) {
	w := newWorld(t)
	w.Refused(errs.LimitExceeded, "runner-web", "pact_post", map[string]any{"project_id": "web", "title": "Sub",
		"mandate_id": w.Root("runner-web"), "delegate_to": "code-web", "child_limits": map[string]any{"runs": 10}})
	out := w.OK("runner-web", "pact_post", map[string]any{"project_id": "web", "title": "Sub",
		"mandate_id": w.Root("runner-web"), "delegate_to": "code-web", "child_limits": map[string]any{"runs": 2}})
	require.NotEmpty(t, out["delegated_mandate_id"])
}

// Other modules' sections land where the answer has always carried them:
// the role in agent, a project section in each project
// (cmd/pact-board's TestWhoamiIsAssembledFromEveryModulesSections shows
// the real ones).
func TestWhoamiCarriesOtherModulesSections(t *testing.T) {
	w := newWorld(t, whoamiParts{})
	out := w.OK("code-web", "pact_whoami", nil)
	require.Equal(t, map[string]any{"id": "role-of-code-web"}, out["agent"].(map[string]any)["role"])
	require.Equal(t, []any{"notes of web"}, out["projects"].([]any)[0].(map[string]any)["context"])
	require.ElementsMatch(t, []string{"agent", "projects", "mandates", "delegates", "unread_messages"}, keysOf(out))

	bare := newWorld(t).OK("code-web", "pact_whoami", nil)
	require.Nil(t, bare["agent"].(map[string]any)["role"], "no module gives a role")
	require.Nil(t, bare["projects"].([]any)[0].(map[string]any)["context"])
}

// whoamiParts registers the sections modules/people and modules/notes
// register, with answers that name what they were asked.
type whoamiParts struct{}

func (whoamiParts) Name() string { return "parts" }

func (whoamiParts) Register(h *kernel.Host) error {
	if err := h.WhoamiSection("role", func(c kernel.WhoamiCaller) (db.Step, func() (any, error)) {
		return db.Step{SQL: "SELECT 1"}, func() (any, error) { return map[string]any{"id": "role-of-" + c.AgentID}, nil }
	}); err != nil {
		return err
	}
	return h.WhoamiProjectSection("context", func(_ kernel.WhoamiCaller, ps []string) (db.Step, func() (map[string]any, error)) {
		return db.Step{SQL: "SELECT 1"}, func() (map[string]any, error) {
			out := map[string]any{}
			for _, p := range ps {
				out[p] = []string{"notes of " + p}
			}
			return out, nil
		}
	})
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestPostAndDeferRefuseWhatPeopleCannotActOn: a task's title must exist
// and fit a list (1-300 characters), its action must be an action name
// (one that approval rules can match: a malformed one would slip past
// them), and a deferral must say why. The original accepted all three
// (docs/specs/divergences.md, audit item 6).
func TestPostAndDeferRefuseWhatPeopleCannotActOn(t *testing.T) {
	w := newWorld(t)
	root := w.Root("code-web")
	post := func(title, action string) map[string]any {
		a := map[string]any{"project_id": "web", "title": title, "mandate_id": root}
		if action != "" {
			a["action"] = action
		}
		return a
	}
	for _, tc := range []struct{ title, action, says string }{
		{"", "", "a task needs a title of 1-300 characters"},
		{"   ", "", "a task needs a title of 1-300 characters"},
		{strings.Repeat("é", 301), "", "a task needs a title of 1-300 characters"},
		{"Deploy", "deploy web", `action "deploy web" must be a project-relative action such as task.work`},
		{"Deploy", "deploy.web@project:web", `action "deploy.web@project:web" must be a project-relative action`},
	} {
		e := w.Refused(errs.InvalidRequest, "code-web", "pact_post", post(tc.title, tc.action))
		require.Contains(t, e.Message, tc.says)
	}
	require.Zero(t, w.Count(`SELECT count(*) FROM tasks`), "refused posts create nothing")
	id := w.OK("code-web", "pact_post", post(strings.Repeat("é", 300), "task.work"))["task_id"].(string)

	e := w.Refused(errs.InvalidRequest, "code-web", "pact_defer", map[string]any{"task_id": id, "reason": "  ", "mandate_id": root})
	require.Equal(t, "say why people must decide (reason)", e.Message)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND NOT deferred`, id), "the task stays as it was")
	w.VerifyLog()
}
