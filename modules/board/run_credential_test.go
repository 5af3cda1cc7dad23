package board_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// runSetup posts a task from code-web delegated to runner-web, which
// claims it under the delegated mandate; it returns the task and that
// mandate.
func (w *world) runSetup(title string) (task, delegated string) {
	w.T.Helper()
	posted := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": title, "mandate_id": w.Root("code-web"),
		"delegate_to": "runner-web"})
	task, delegated = posted["task_id"].(string), posted["delegated_mandate_id"].(string)
	w.OK("runner-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": delegated, "exclusive": true})
	return task, delegated
}

// issueRun asks for a run credential of task under mandate with tools.
func (w *world) issueRun(task, mandate string, tools []string, seconds float64) map[string]any {
	w.T.Helper()
	return w.OK("runner-web", "pact_run_credential", map[string]any{"task_id": task, "mandate_id": mandate,
		"tools": tools, "seconds": seconds})
}

type runBearer struct{ token string }

func (b runBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// runSession connects to runner-web's URL with token, as a run's session
// does; err is the connection's failure (a refused token fails it).
func (w *world) runSession(token string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "run", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: w.URL + "/mcp/a/runner-web",
		HTTPClient: &http.Client{Transport: runBearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err == nil {
		w.T.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// TestARunCredentialDiesWithItsRun: the credential is refused at the
// transport once its task is reported, once its claim is lost (released
// by a person, then claimed anew by the same agent), and after its
// seconds, while the agent's own token goes on working; the hook
// endpoint never takes it (docs/invariants.md RUN-002).
func TestARunCredentialDiesWithItsRun(t *testing.T) {
	w := newWorld(t)
	alive := func(token string) bool {
		_, err := w.runSession(token)
		return err == nil
	}
	tools := []string{"pact_whoami"}

	// Reported.
	task, delegated := w.runSetup("Reported")
	token := w.issueRun(task, delegated, tools, 600)["token"].(string)
	require.True(t, alive(token))
	req, _ := http.NewRequest(http.MethodPost, w.URL+"/hooks/a/runner-web/stop", strings.NewReader(`{"session_id":"s"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the hook endpoint takes no run credential")
	w.OK("runner-web", "pact_report", map[string]any{"task_id": task, "mandate_id": delegated, "status": "completed",
		"result": "## Handoff\n- Done: it"})
	require.False(t, alive(token), "dead after the report")

	// Claim lost: released by a person, claimed again by the same agent.
	task, delegated = w.runSetup("Lost")
	token = w.issueRun(task, delegated, tools, 600)["token"].(string)
	require.True(t, alive(token))
	got := w.Admin("ana", "POST", "/tasks/"+task+"/release", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.False(t, alive(token), "dead once the claim is released")
	w.OK("runner-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": delegated})
	require.False(t, alive(token), "a new claim is a new run: the old credential stays dead")
	w.OK("runner-web", "pact_report", map[string]any{"task_id": task, "mandate_id": delegated, "status": "failed",
		"result": "## Handoff\n- Done: nothing"})

	// Timed out, the claim still held.
	task, delegated = w.runSetup("Timeout")
	token = w.issueRun(task, delegated, tools, 1)["token"].(string)
	require.True(t, alive(token))
	require.Eventually(t, func() bool { return !alive(token) }, 5*time.Second, 100*time.Millisecond, "dead after its seconds")
	w.OK("runner-web", "pact_report", map[string]any{"task_id": task, "mandate_id": delegated, "status": "working"})
	require.False(t, alive(token))
	require.True(t, alive(w.Token("runner-web")), "the agent's own token still works")
}

// TestARunCredentialIsIssuedOnlyForTheCallersClaim: refusals of
// pact_run_credential, each before anything is stored.
func TestARunCredentialIsIssuedOnlyForTheCallersClaim(t *testing.T) {
	w := newWorld(t)
	task, delegated := w.runSetup("Mine")
	ask := func(agent, task, mandate string, tools []string, seconds float64) *errs.Error {
		_, err := w.Call(agent, "pact_run_credential", map[string]any{"task_id": task, "mandate_id": mandate, "tools": tools, "seconds": seconds})
		e, _ := errs.As(err)
		require.NotNil(t, e)
		return e
	}
	open := w.post("code-web", "web", "Open", nil)
	require.Equal(t, errs.ClaimLost, ask("code-web", open, w.Root("code-web"), []string{"pact_list"}, 60).Code, "not claimed")
	require.Equal(t, errs.Forbidden, ask("runner-web", task, w.Root("runner-web"), []string{"pact_list"}, 60).Code,
		"the root is not under the claim's mandate")
	require.Equal(t, errs.InvalidRequest, ask("runner-web", task, delegated, []string{"pact_nothing"}, 60).Code)
	require.Equal(t, errs.InvalidRequest, ask("runner-web", task, delegated, []string{"pact_claim", "pact_report"}, 60).Code,
		"nothing left to grant")
	require.Equal(t, errs.InvalidRequest, ask("runner-web", task, delegated, []string{"pact_list"}, 86401).Code)
	require.Zero(t, w.Count(`SELECT count(*) FROM run_credentials`))
}
