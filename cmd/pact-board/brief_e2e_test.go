package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/modules/people"
)

// TestARunnersScheduledBriefArrivesAsOneSlackCard is the secretary's
// morning, end to end: a board with the real notifier-slack plugin, a
// secretary agent run by the real pact-runner binary with the secretary
// role's settings and instructions, Claude Code's stand-in reading the
// board through the run's credential (pact_list) and answering the
// structured brief (--json-schema); the brief reaches a local Slack
// receiver as one card whose items open the tasks it read (RUNNER-008).
func TestARunnersScheduledBriefArrivesAsOneSlackCard(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join("..", "..")
	for out, pkg := range map[string]string{"notifier-slack": "./plugins/notifier-slack", "pact-runner": "./cmd/pact-runner",
		"claude": "./cmd/pact-runner/testdata/claude"} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, out), pkg)
		build.Dir = root
		got, err := build.CombinedOutput()
		require.NoError(t, err, "build %s: %s", pkg, got)
	}
	var mu sync.Mutex
	var cards []string
	slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		cards = append(cards, string(body))
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	defer slack.Close()
	plugins, _ := json.Marshal([]map[string]any{{"name": "slack", "kind": "notifier", "binary": "notifier-slack",
		"env": map[string]string{"PACT_SLACK_API_BASE": slack.URL, "PACT_ADMIN_UI_URL": "https://console.test"}}})
	b := startE2E(t, map[string]string{"PACT_PLUGIN_DIR": dir, "PACT_PLUGINS": string(plugins)})
	ctx := context.Background()
	_, err := b.d.ExecContext(ctx, `INSERT INTO notify_destinations (org_id, notifier, url, created_by)
		VALUES ('default', 'slack', 'https://hooks.slack.com/services/T0/B0/brief', 'ana')`)
	require.NoError(t, err)

	// The secretary, registered with the secretary role's actions.
	ident := identity.NewService(b.d, ledger.New(nil), nil)
	sec, err := registerAgent(ctx, b.d, ident, "ana", people.AgentInput{ID: "secretary-web", Client: "runner", Projects: []string{"web"},
		Scope: []string{"task.read@project:web", "task.post@project:web", "report.brief@project:web"}, Limits: map[string]float64{"runs": 40, "turns": 1200}})
	require.NoError(t, err)
	var settingsJSON, instructions string
	require.NoError(t, b.d.NewRaw(`SELECT settings::text, instructions FROM agent_roles WHERE org_id = 'default' AND id = 'secretary'`).
		Scan(ctx, &settingsJSON, &instructions))
	var settings map[string]string
	require.NoError(t, json.Unmarshal([]byte(settingsJSON), &settings))
	var schedule []map[string]any
	require.NoError(t, json.Unmarshal([]byte(settings["PACT_RUNNER_SCHEDULE"]), &schedule))
	require.Equal(t, "report.brief", schedule[0]["action"], "the role's schedule is a brief")
	schedule[0]["at"] = "00:00" // due whenever the test runs
	sched, _ := json.Marshal(schedule)
	settings["PACT_RUNNER_SCHEDULE"] = string(sched)
	roleFile := filepath.Join(dir, "secretary.md")
	require.NoError(t, os.WriteFile(roleFile, []byte(instructions+"\nWrite the brief."), 0o600))

	code := connect(t, b.base, "code-web", b.tokens["code-web"])
	var posted []string
	for _, title := range []string{"Fix the header", "Ship the footer"} {
		out := code.ok("pact_post", map[string]any{"project_id": "web", "title": title, "mandate_id": b.roots["code-web"]})
		posted = append(posted, out["task_id"].(string))
	}

	run := exec.Command(filepath.Join(dir, "pact-runner"), "--once")
	run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "PACT_URL=" + b.base, "PACT_TOKEN=" + sec.Token,
		"PACT_AGENT_ID=secretary-web", "PACT_RUNNER_CLAUDE=" + filepath.Join(dir, "claude"), "PACT_RUNNER_ROLE_FILE=" + roleFile,
		"PACT_RUNNER_LOG_DIR=" + filepath.Join(dir, "logs"), "PACT_LOG_LEVEL=debug",
		`STANDIN_CALLS=[{"tool":"pact_list","args":{"project_id":"web","filter":"all"}}]`, "STANDIN_COST=0.12"}
	for k, v := range settings {
		run.Env = append(run.Env, k+"="+v)
	}
	out, err := run.CombinedOutput()
	require.NoError(t, err, "%s", out)

	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(cards) > 0 }, 30*time.Second, 50*time.Millisecond,
		"the brief reaches Slack; the runner said:\n%s", out)
	time.Sleep(500 * time.Millisecond) // nothing else follows it
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, cards, 1, "one card")
	card := cards[0]
	require.Contains(t, card, "Good morning from the stand-in", "the structured brief's greeting")
	require.Contains(t, card, "What changed")
	for i, id := range posted {
		require.Contains(t, card, []string{"Fix the header", "Ship the footer"}[i])
		require.Contains(t, card, "https://console.test/tasks/"+id, "an open-task button per item")
	}
	var status, result string
	require.NoError(t, b.d.NewRaw(`SELECT status, result::text FROM tasks WHERE action = 'report.brief'`).Scan(ctx, &status, &result))
	require.Equal(t, "completed", status)
	require.Contains(t, result, `"report"`)
	require.True(t, strings.Contains(result, "Handoff"), result)
}
