package notes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/notes"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) {
	// The Admin API answers with its own error model, as cmd/pact-board sets it.
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	pgtest.Main(m)
}

type fixture struct {
	t          *testing.T
	d          *db.DB
	k          *kernel.Kernel
	notes      *notes.Module
	root, wide string // code-web's root mandate (no context.write) and one with it
}

func setup(t *testing.T) *fixture {
	ctx := context.Background()
	f := &fixture{t: t, d: pgtest.New(t)}
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	log := ledger.New(nil)
	ms := mandate.NewService(keys, nil)
	ident := identity.NewService(f.d, log, ms, nil)
	f.k = kernel.New(kernel.Deps{DB: f.d, Log: log, Mandates: ms, Identity: ident})
	f.notes = notes.New()
	require.NoError(t, f.k.Register(f.notes))
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	r, err := ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	f.root = r.RootMandateID.String()
	var m *mandate.Mandate
	require.NoError(t, f.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		m, err = ms.IssueRoot(ctx, tx, mandate.RootInput{Issuer: "ana", Holder: "code-web",
			Scope: []string{"task.read@project:web", "context.write@project:web"}, Delegations: 1,
			ExpiresAt: time.Now().Add(30 * 24 * time.Hour)})
		return err
	}))
	f.wide = m.ID.String()
	return f
}

func (f *fixture) note(args map[string]any) (map[string]any, error) {
	raw, _ := json.Marshal(args)
	out, err := f.k.Tools().Call(context.Background(), "code-web", "pact_note", raw)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(out)
	var m map[string]any
	require.NoError(f.t, json.Unmarshal(b, &m))
	return m, nil
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

	var first string
	require.NoError(t, f.d.NewRaw(`SELECT body FROM context_note_versions WHERE key = 'deploy' AND version = 1`).Scan(context.Background(), &first))
	require.Equal(t, "Run make deploy with password=[REDACTED]", first)

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
	_, err = f.d.ExecContext(ctx, `UPDATE context_notes SET pinned = true WHERE key = 'rules'`)
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

	_, err = f.d.ExecContext(ctx, `UPDATE projects SET frozen = true WHERE id = 'web'`)
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
	res := f.k.Resources().List()
	require.Len(t, res, 2)
	text, err := res[1].Read(context.Background(), "code-web", "pact://projects/web/context/style", map[string]string{"project_id": "web", "key": "style"})
	require.NoError(t, err)
	require.Contains(t, text, `"body":"gofmt"`)
	require.Contains(t, text, notes.Notice)
	list, err := res[0].Read(context.Background(), "code-web", "pact://projects/web/context", map[string]string{"project_id": "web"})
	require.NoError(t, err)
	require.Contains(t, list, `"key":"style"`)
	var logged int
	require.NoError(t, f.d.NewRaw(`SELECT count(*) FROM entries WHERE action = 'pact_note' AND outcome = 'ok'`).Scan(context.Background(), &logged))
	require.Equal(t, 3, logged, "resource reads are logged as pact_note calls")
}

func TestPeoplePinWriteAndEraseNotes(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	_, err := f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "contact", "body": "call Ana at 555-0100"})
	require.NoError(t, err)
	require.NoError(t, f.notes.SetPinned(ctx, "ana", "web", "contact", true))
	_, err = f.note(map[string]any{"project_id": "web", "mandate_id": f.wide, "key": "contact", "body": "changed"})
	require.Equal(t, errs.NotePinned, errs.CodeOf(err))
	body := "mail Ana"
	v, err := f.notes.Write(ctx, "ana", "web", "contact", nil, &body)
	require.NoError(t, err, "people may edit a pinned note")
	require.Equal(t, 2, v)
	require.Equal(t, errs.NotFound, errs.CodeOf(f.notes.SetPinned(ctx, "ana", "web", "nope", true)))

	var first int64
	require.NoError(t, f.d.NewRaw(`SELECT id FROM context_note_versions WHERE key = 'contact' AND version = 1`).Scan(ctx, &first))
	erased, err := f.notes.EraseVersion(ctx, "ana", first)
	require.NoError(t, err)
	require.EqualValues(t, 1, erased.PayloadsErased, "the pact_note entry that carried the text is erased")
	var leftovers int
	require.NoError(t, f.d.NewRaw(`SELECT count(*) FROM payloads WHERE content::text LIKE '%555-0100%'`).Scan(ctx, &leftovers))
	require.Zero(t, leftovers)
	_, err = f.notes.EraseVersion(ctx, "ana", first)
	require.Equal(t, errs.NotFound, errs.CodeOf(err), "a version is erased once")
	vs, err := ledger.New(nil).VerifyAll(ctx, f.d, nil)
	require.NoError(t, err)
	for _, chains := range vs {
		for _, c := range chains {
			require.True(t, c.OK, c.Reason)
		}
	}
}
