package pacts_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

func TestATwoAgentJobNumbersPerPrefixAndCatchesUp(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	out, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "I take the copy."})
	require.NoError(t, err)
	require.Equal(t, "W-001", out["number"])
	out, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "I take the layout.", "reply_to": "W-001"})
	require.NoError(t, err)
	require.Equal(t, "B-001", out["number"])
	news := out["since_your_last_write"].([]any)
	require.NotEmpty(t, news, "bram's write answers with what wanda wrote")
	out, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Good."})
	require.NoError(t, err)
	require.Equal(t, "W-002", out["number"])
	news = out["since_your_last_write"].([]any)
	require.Len(t, news, 1, "B-001 since wanda's last write (which carried bram's join), never wanda's own: %v", news)
	require.Equal(t, "B-001", news[0].(map[string]any)["ref"])

	got, err := f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	require.EqualValues(t, 3, got["message_count"])
	require.Equal(t, "Be brief.", got["rules"])
	cursor := got["cursor"].(float64)
	_, err = f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "Copy: draft 1"})
	require.NoError(t, err)
	got, err = f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id, "since": cursor})
	require.NoError(t, err)
	require.Empty(t, got["messages"])
	require.Len(t, got["sections"], 1)

	// Only a section's owner writes it; the refusal is recorded beside it.
	_, err = f.as("bram", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "key": "@wanda", "body": "mine now"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	_, err = f.as("bram", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "key": "rules", "body": "no rules"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	got, err = f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	var wandas map[string]any
	for _, s := range got["sections"].([]any) {
		if s.(map[string]any)["key"] == "@wanda" {
			wandas = s.(map[string]any)
		}
	}
	require.Equal(t, "Copy: draft 1", wandas["body"])
	refused := wandas["refused_writes"].([]any)
	require.Len(t, refused, 1)
	require.Equal(t, "agent:bram", refused[0].(map[string]any)["by"])
	f.VerifyLog()
}

func TestAgentsInDifferentProjectsDoNotMeet(t *testing.T) {
	f := setup(t)
	_, err := f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "x", "purpose": "y", "prefix": "W",
		"invite": []any{map[string]any{"key": "@olga", "prefix": "O"}}})
	require.Equal(t, errs.ProjectMismatch, errs.CodeOf(err))
	id := f.pact(t)
	_, err = f.as("olga", pacts.ToolGet, map[string]any{"pact_id": id})
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	e, _ := errs.As(err)
	require.Contains(t, e.Message, "(ops)", "a not found names the projects searched")
}

func TestOnlyOwnersAndApproversAgentsStartPacts(t *testing.T) {
	f := setup(t)
	_, err := f.as("vera", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "x", "purpose": "y", "prefix": "V"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
}

// A reply marks its author's own earlier message done or superseded, in
// the statement that posts the reply (postMessage): the feed row, the
// message on it and the mark commit together, and the mark passes the
// trigger that lets only a message's author change it. Another seat's
// message cannot be marked, and that refusal posts nothing: its number is
// never used.
func TestAReplyMarksItsAuthorsOwnMessageAndNoOneElses(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Draft one."})
	require.NoError(t, err)
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Noted."})
	require.NoError(t, err)
	out, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Draft two.", "reply_to": "W-001", "mark": "superseded"})
	require.NoError(t, err)
	require.Equal(t, "W-002", out["number"])
	posted := out["cursor"]

	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Closing yours.", "reply_to": "B-001", "mark": "done"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))

	got, err := f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	require.EqualValues(t, 3, got["message_count"], "the refused reply posted nothing")
	status := map[string]any{}
	for _, m := range got["messages"].([]any) {
		msg := m.(map[string]any)
		status[msg["number"].(string)] = msg["status"]
		if msg["number"] == "W-002" {
			require.Equal(t, "W-001", msg["reply_to"])
			require.Equal(t, "Draft two.", msg["body"])
			require.Equal(t, posted, msg["cursor"], "the message sits on the feed row its post answered")
		}
	}
	require.Equal(t, map[string]any{"W-001": "superseded", "B-001": "open", "W-002": "open"}, status)

	out, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Draft three."})
	require.NoError(t, err)
	require.Equal(t, "W-003", out["number"], "numbers stay gap-free past a refusal")
	f.VerifyLog()
}
