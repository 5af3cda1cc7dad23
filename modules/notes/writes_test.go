package notes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/notes"
	"github.com/pactboard/pact/sdk/errs"
)

// A Runner may not write a note in a production project (project_mismatch),
// while a Claude Code agent of the same project may.
func TestOnlyARunnerIsRefusedANoteInAProductionProject(t *testing.T) {
	f := setup(t)
	f.Project("ana", "prod", true)
	scope := []string{"task.read@project:prod", "context.write@project:prod"}
	f.Agent("ana", kerneltest.AgentInput{ID: "code-prod", Client: "code", Projects: []string{"prod"}, Scope: scope})
	f.Agent("ana", kerneltest.AgentInput{ID: "runner-prod", Client: "runner", Projects: []string{"prod"}, Scope: scope})

	out := f.OK("code-prod", "pact_note", map[string]any{"project_id": "prod", "mandate_id": f.Root("code-prod"),
		"key": "deploy", "body": "by hand"})
	require.EqualValues(t, 1, out["version"])
	e := f.Refused(errs.ProjectMismatch, "runner-prod", "pact_note", map[string]any{"project_id": "prod",
		"mandate_id": f.Root("runner-prod"), "key": "deploy", "body": "by script"})
	require.Contains(t, e.Message, "production")
	require.Equal(t, 1, f.Count(`SELECT version FROM context_notes WHERE project_id = 'prod' AND key = 'deploy'`))
}

// A note body may have exactly MaxBody characters, counted as runes not
// bytes; one more is refused with invalid_request naming the limit.
func TestANoteBodyHoldsAtMostMaxBodyCharacters(t *testing.T) {
	f := setup(t)
	full := strings.Repeat("é", notes.MaxBody)
	_, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "long", "body": full})
	require.NoError(t, err, "MaxBody characters (twice as many bytes) fit")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM context_notes WHERE key = 'long' AND char_length(body) = ?`, notes.MaxBody))

	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "long", "body": full + "é"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	e, _ := errs.As(err)
	require.Contains(t, e.Message, fmt.Sprintf("at most %d characters (this one has %d)", notes.MaxBody, notes.MaxBody+1))
	require.Equal(t, 1, f.Count(`SELECT version FROM context_notes WHERE key = 'long'`), "the refused write left the note as it was")
}
