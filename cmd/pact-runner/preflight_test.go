package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestABadSetupStopsTheRunnerBeforeAnyClaim: each cause a runner can see
// at start refuses to start it with one line naming what is wrong and how
// to fix it, and the task waiting for it is never claimed (RUNNER-010).
func TestABadSetupStopsTheRunnerBeforeAnyClaim(t *testing.T) {
	w := newWorld(t)
	id := w.post("Waiting", "runner-web", nil)
	bin := standIn(t)
	for _, tc := range []struct {
		name string
		more []string
		says string
	}{
		{"ClaudeMissing", []string{"PACT_RUNNER_CLAUDE", filepath.Join(w.dir, "no-claude")}, "PACT_RUNNER_CLAUDE"},
		{"CommandMissing", []string{"PACT_RUNNER_COMMAND", "no-such-tool --fix"}, `"no-such-tool" is not a command`},
		{"RepoAbsent", []string{"PACT_RUNNER_CLAUDE", bin, "PACT_RUNNER_REPO", filepath.Join(w.dir, "nowhere")}, "PACT_RUNNER_REPO"},
		{"RoleFileAbsent", []string{"PACT_RUNNER_CLAUDE", bin, "PACT_RUNNER_ROLE_FILE", filepath.Join(w.dir, "role.md")}, "PACT_RUNNER_ROLE_FILE"},
		{"NoTools", []string{"PACT_RUNNER_CLAUDE", bin, "PACT_RUNNER_ALLOWED_TOOLS", " , "}, "PACT_RUNNER_ALLOWED_TOOLS is empty"},
		{"NotAToolName", []string{"PACT_RUNNER_CLAUDE", bin, "PACT_RUNNER_ALLOWED_TOOLS", "pact_list,Bash"}, `"Bash" is not a tool name`},
		{"ToolTheBoardLacks", []string{"PACT_RUNNER_CLAUDE", bin, "PACT_RUNNER_ALLOWED_TOOLS", "pact_list,pact_nothing"},
			"names pact_nothing, which this board does not have"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := w.env("runner-web", "", tc.more...)
			if env["PACT_RUNNER_COMMAND"] == "" {
				delete(env, "PACT_RUNNER_COMMAND")
			}
			log, err := w.runOnce(env)
			require.Error(t, err, log)
			require.Contains(t, err.Error(), tc.says)
			require.NotContains(t, err.Error(), "\n", "one line")
			require.Equal(t, "submitted", w.status(id), "never claimed")
			require.Zero(t, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_claim'`))
		})
	}
	// A tool a run never gets is only warned about.
	log, err := w.runOnce(w.claudeEnv("runner-web", bin, filepath.Join(w.dir, "record.json"), `[]`,
		"PACT_RUNNER_ALLOWED_TOOLS", "pact_list,pact_claim"))
	require.NoError(t, err, log)
	require.True(t, strings.Contains(log, "names tools a run never gets"), log)
	require.Equal(t, "completed", w.status(id))
}
