package notes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/notes"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// fixture is the notes module on a board with ana (owner), the project web
// and the agent code-web.
type fixture struct {
	*kerneltest.World
	notes      *notes.Module
	root, wide string // code-web's root mandate (no context.write) and one with it
}

func setup(t *testing.T) *fixture {
	f := &fixture{notes: notes.New()}
	f.World = kerneltest.New(t, kerneltest.Options{}, f.notes)
	f.Person("", "ana", identity.Owner)
	f.Project("ana", "web", false)
	f.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	f.root = f.Root("code-web")
	f.wide = f.Mandate("ana", "code-web", "task.read@project:web", "context.write@project:web")
	return f
}

// note calls pact_note as code-web over MCP.
func (f *fixture) note(args map[string]any) (map[string]any, error) {
	return f.Call("code-web", "pact_note", args)
}

func TestNotesAreVersionedRedactedAndReferenceData(t *testing.T) {
	f := setup(t)
	_, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.root, "key": "deploy", "body": "x"})
	require.Equal(t, errs.ScopeExceeded, errs.CodeOf(err), "writing needs context.write")
	e, _ := errs.As(err)
	require.Contains(t, e.Message, "context.write")

	out, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "deploy", "title": "How we deploy",
		"body": "Run make deploy with password=hunter2"})
	require.NoError(t, err)
	require.EqualValues(t, 1, out["version"])
	out, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "deploy", "body": "Run make ship"})
	require.NoError(t, err)
	require.EqualValues(t, 2, out["version"])

	list, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.root})
	require.NoError(t, err)
	require.Equal(t, notes.Notice, list["notice"])
	require.Len(t, list["notes"], 1)
	one, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.root, "key": "deploy"})
	require.NoError(t, err)
	n := one["note"].(map[string]any)
	require.Equal(t, "How we deploy", n["title"], "the title is kept when a write gives none")
	require.Equal(t, "Run make ship", n["body"])
	require.Equal(t, "agent:code-web", n["updated_by"])

	require.Equal(t, 1, f.Count(`SELECT count(*) FROM context_note_versions WHERE key = 'deploy' AND version = 1
		AND body = 'Run make deploy with password=[REDACTED]'`))

	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "deploy", "archive": true})
	require.NoError(t, err)
	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.root, "key": "deploy"})
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
}

func TestPinnedFrozenAndBadInput(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	_, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "rules", "body": "be kind"})
	require.NoError(t, err)
	_, err = f.DB.ExecContext(ctx, `UPDATE context_notes SET pinned = true WHERE key = 'rules'`)
	require.NoError(t, err)
	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "rules", "body": "be mean"})
	require.Equal(t, errs.NotePinned, errs.CodeOf(err))
	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "rules", "archive": true})
	require.Equal(t, errs.NotePinned, errs.CodeOf(err))

	for _, bad := range []map[string]any{
		{"project_id": "web", "mandate_id": f.wide, "body": "no key"},
		{"project_id": "web", "mandate_id": f.wide, "key": "Bad Key", "body": "x"},
		{"project_id": "web", "mandate_id": f.wide, "key": "k", "body": "  "},
		{"project_id": "web", "mandate_id": f.wide, "key": "k", "body": strings.Repeat("x", notes.MaxBody+1)},
		{"project_id": "web", "mandate_id": f.wide, "key": "k", "body": 5},
	} {
		_, err := f.note(bad)
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", bad["key"])
	}
	_, err = f.note(map[string]any{"project_id": "api", "mandate_id": f.wide})
	require.Equal(t, errs.ProjectMismatch, errs.CodeOf(err))

	_, err = f.DB.ExecContext(ctx, `UPDATE projects SET frozen = true WHERE id = 'web'`)
	require.NoError(t, err)
	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "k", "body": "x"})
	require.Equal(t, errs.ProjectFrozen, errs.CodeOf(err))
	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.root, "key": "rules"})
	require.NoError(t, err, "a frozen project's notes can still be read")
}

func TestNotesAreMCPResources(t *testing.T) {
	f := setup(t)
	_, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "style", "body": "gofmt"})
	require.NoError(t, err)
	res := f.Kernel.Resources().List()
	require.Len(t, res, 2)
	text, err := res[1].Read(context.Background(), "code-web", "pact://projects/web/context/style", map[string]string{"project_id": "web", "key": "style"})
	require.NoError(t, err)
	require.Contains(t, text, `"body":"gofmt"`)
	require.Contains(t, text, notes.Notice)
	list, err := res[0].Read(context.Background(), "code-web", "pact://projects/web/context", map[string]string{"project_id": "web"})
	require.NoError(t, err)
	require.Contains(t, list, `"key":"style"`)
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM entries WHERE action = 'pact_note' AND outcome = 'ok'`),
		"resource reads are logged as pact_note calls")
}

func TestPeoplePinWriteAndEraseNotes(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	_, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "contact", "body": "call Ana at 555-0100"})
	require.NoError(t, err)
	require.NoError(t, f.notes.Service().SetPinned(ctx, "ana", "web", "contact", true))
	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "contact", "body": "changed"})
	require.Equal(t, errs.NotePinned, errs.CodeOf(err))
	body := "mail Ana"
	v, err := f.notes.Service().Write(ctx, "ana", "web", "contact", nil, &body)
	require.NoError(t, err, "people may edit a pinned note")
	require.Equal(t, 2, v)
	require.Equal(t, errs.NotFound, errs.CodeOf(f.notes.Service().SetPinned(ctx, "ana", "web", "nope", true)))

	first := int64(f.Count(`SELECT id FROM context_note_versions WHERE key = 'contact' AND version = 1`))
	erased, err := f.notes.Service().EraseVersion(ctx, "ana", first)
	require.NoError(t, err)
	require.EqualValues(t, 1, erased.PayloadsErased, "the pact_note entry that carried the text is erased")
	require.Zero(t, f.Count(`SELECT count(*) FROM payloads WHERE content::text LIKE '%555-0100%'`))
	_, err = f.notes.Service().EraseVersion(ctx, "ana", first)
	require.Equal(t, errs.NotFound, errs.CodeOf(err), "a version is erased once")
	f.VerifyLog()
}
