package people_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// An agent left with no project (a state the database allows and Renew
// guards against) still redeems its setup code: the answer names no
// project, and a role setting's {project} becomes empty, rather than the
// board failing the request.
func TestAnAgentWithNoProjectRedeemsItsCodeNamingNone(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "PUT", "/roles/builder", `{"name": "Builder", "client": "runner", "actions": ["task.work"],
		"settings": {"PACT_RUNNER_WORKDIR": "/src/{project}"}}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	got = b.Admin("val", "POST", "/agents/hire", `{"role": "builder", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	code := got.Body["connect"].(map[string]any)["code"].(string)
	require.NoError(t, b.SetAgentProjects("builder-web", "default", []string{}))

	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, "builder-web", got.Body["agent_id"])
	require.Equal(t, "", got.Body["project"])
	require.Equal(t, map[string]any{"PACT_RUNNER_WORKDIR": "/src/"}, got.Body["settings"])
}
