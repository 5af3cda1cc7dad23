package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// standIn builds the Claude Code stand-in (testdata/claude) into dir and
// returns its path.
func standIn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "claude")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/claude").CombinedOutput()
	require.NoError(t, err, "build the stand-in: %s", out)
	return bin
}

// standInRecord is what the stand-in saw (testdata/claude).
type standInRecord struct {
	Args      []string          `json:"args"`
	Prompt    string            `json:"prompt"`
	Cwd       string            `json:"cwd"`
	Token     string            `json:"token"`
	Tools     []string          `json:"tools"`
	Role      string            `json:"role"`
	Flags     map[string]string `json:"flags"`
	Connected bool              `json:"connected"`
	Error     string            `json:"error"`
	Sleeping  bool              `json:"sleeping"`
	Calls     []struct {
		Tool    string `json:"tool"`
		IsError bool   `json:"is_error"`
		Text    string `json:"text"`
	} `json:"calls"`
}

func (w *world) standInRecord(path string) standInRecord {
	w.T.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(w.T, err, "the stand-in ran")
	var r standInRecord
	require.NoError(w.T, json.Unmarshal(raw, &r))
	return r
}

// claudeEnv is a runner's environment running the stand-in as Claude Code,
// with calls for it to make (a JSON list) and more variables.
func (w *world) claudeEnv(agent, bin, record, calls string, more ...string) map[string]string {
	e := w.env(agent, "", append([]string{"PACT_RUNNER_CLAUDE", bin, "STANDIN_RECORD", record, "STANDIN_CALLS", calls}, more...)...)
	delete(e, "PACT_RUNNER_COMMAND")
	for k, v := range e {
		if strings.HasPrefix(k, "STANDIN_") {
			w.T.Setenv(k, v) // the stand-in reads them from the runner's environment
		}
	}
	return e
}

// tokenAlive reports whether the board still takes token for agent's URL.
func (w *world) tokenAlive(agent, header string) bool {
	c := mcp.NewClient(&mcp.Implementation{Name: "probe", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: w.URL + "/mcp/a/" + agent,
		HTTPClient: &http.Client{Transport: headerRT{header}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return false
	}
	_ = cs.Close()
	return true
}

type headerRT struct{ header string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", h.header)
	return http.DefaultTransport.RoundTrip(r)
}

// TestARunsSessionWorksOnTheBoardWithItsOwnCredential: the default command
// runs Claude Code (the stand-in) in the repository with the print-mode
// flags; the session connects with the run's credential, sees exactly the
// role's tools, is refused a claim, reads the board; the config is mode
// 600 in a directory removed afterwards; the credential dies with the
// report; the JSON result gives the text, the turns and the cost (RUNNER-008).
func TestARunsSessionWorksOnTheBoardWithItsOwnCredential(t *testing.T) {
	w := newWorld(t)
	bin := standIn(t)
	repo, role := t.TempDir(), filepath.Join(t.TempDir(), "role.md")
	require.NoError(t, os.WriteFile(role, []byte("You are the web runner."), 0o600))
	posted := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Fix the header", "mandate_id": w.Root("code-web"),
		"delegate_to": "runner-web", "child_limits": map[string]any{"runs": 1, "turns": 30, "usd": 2}})
	id, delegated := posted["task_id"].(string), posted["delegated_mandate_id"].(string)
	record := filepath.Join(w.dir, "record.json")
	left := filepath.Join(w.dir, "logs-runner-web", "run-left-by-a-killed-runner")
	require.NoError(t, os.MkdirAll(left, 0o700))
	require.NoError(t, os.Chmod(filepath.Dir(left), 0o700))
	calls := `[{"tool":"pact_list","args":{"filter":"all"}},{"tool":"pact_claim","args":{"task_id":"` + id + `"}},` +
		`{"tool":"pact_whoami","args":{}}]`
	log, err := w.runOnce(w.claudeEnv("runner-web", bin, record, calls, "PACT_RUNNER_REPO", repo, "PACT_RUNNER_ROLE_FILE", role,
		"STANDIN_TURNS", "3", "STANDIN_COST", "0.25"))
	require.NoError(t, err, log)
	rec := w.standInRecord(record)

	require.True(t, rec.Connected, log)
	require.Equal(t, []string{"pact_list", "pact_note", "pact_post", "pact_whoami"}, sorted(rec.Tools), "exactly the role's tools")
	require.Len(t, rec.Calls, 3)
	require.False(t, rec.Calls[0].IsError, rec.Calls[0].Text)
	require.Contains(t, rec.Calls[0].Text, id, "the session reads the board")
	require.True(t, rec.Calls[1].IsError, "a claim with the run's credential is refused")
	require.Contains(t, rec.Calls[1].Text, `"forbidden"`)
	require.False(t, rec.Calls[2].IsError)

	require.Equal(t, repo, rec.Cwd, "the session runs in PACT_RUNNER_REPO")
	require.Equal(t, "You are the web runner.", rec.Role)
	require.Contains(t, rec.Args, "--strict-mcp-config")
	require.Equal(t, "mcp__pact__pact_whoami,mcp__pact__pact_list,mcp__pact__pact_note,mcp__pact__pact_post", rec.Flags["allowedTools"])
	require.Equal(t, "30", rec.Flags["max-turns"], "min(PACT_RUNNER_MAX_TURNS, the claim's turns)")
	require.Equal(t, "2", rec.Flags["max-budget-usd"], "what is left of the chain's usd")
	require.Empty(t, rec.Flags["json-schema"], "only a report.brief task asks for the brief's schema")
	require.Contains(t, rec.Prompt, "Fix the header")
	require.NotContains(t, rec.Token, w.Token("runner-web"), "the runner's own token never reaches the session")
	require.True(t, strings.HasPrefix(rec.Token, "Bearer pact_run_"), rec.Token)

	config := rec.Args[slices.Index(rec.Args, "--mcp-config")+1]
	_, err = os.Stat(filepath.Dir(config))
	require.True(t, os.IsNotExist(err), "the run's directory is removed after the run")
	require.Equal(t, filepath.Join(w.dir, "logs-runner-web"), filepath.Dir(filepath.Dir(config)), "in the log directory")
	_, err = os.Stat(left)
	require.True(t, os.IsNotExist(err), "what a killed runner left is removed at start")

	require.Equal(t, "completed", w.status(id))
	require.Contains(t, w.result(id), "Done by the stand-in.")
	require.Equal(t, 3.0, w.used(delegated, "turns"), "num_turns is usage.turns")
	require.Equal(t, 0.25, w.used(delegated, "usd"), "total_cost_usd is usage.usd")
	require.False(t, w.tokenAlive("runner-web", rec.Token), "the credential is refused after the report")
	require.True(t, w.tokenAlive("runner-web", "Bearer "+w.Token("runner-web")))
}

// TestARunsCredentialDiesWhenItsClaimIsLost: a person releases the task
// while the session runs; the runner kills the run and the credential is
// refused. Its life is the run timeout, rounded up to a second.
func TestARunsCredentialDiesWhenItsClaimIsLost(t *testing.T) {
	w := newWorld(t)
	bin := standIn(t)
	id := w.post("Slow", "runner-web", nil)
	record := filepath.Join(w.dir, "record.json")
	s := w.start(w.claudeEnv("runner-web", bin, record, `[]`, "STANDIN_SLEEP", "60", "PACT_RUNNER_HEARTBEAT_SECONDS", "0.2",
		"PACT_RUNNER_RUN_TIMEOUT_MINUTES", "0.75"))
	var rec standInRecord
	eventually(t, "the session connected and waits", func() bool {
		raw, err := os.ReadFile(record)
		if err != nil || json.Unmarshal(raw, &rec) != nil {
			return false
		}
		require.Empty(t, rec.Error, "the stand-in failed")
		return rec.Sleeping
	}, s.log)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM run_credentials WHERE expires_at - issued_at = interval '45 seconds'`),
		"the credential lives as long as the run may")
	header := rec.Token
	require.True(t, w.tokenAlive("runner-web", header))
	r := w.Admin("ana", "POST", "/tasks/"+id+"/release", "")
	require.Equal(t, 200, r.Status, r.Raw)
	require.False(t, w.tokenAlive("runner-web", header), "refused once the claim is lost")
	eventually(t, "the runner killed the run", func() bool { return strings.Contains(s.log.String(), "claim lost") }, s.log)
	require.NoError(t, s.stop(t))
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
