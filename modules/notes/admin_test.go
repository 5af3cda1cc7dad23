package notes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth"
	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/notes"
	"github.com/pactboard/pact/sdk/plugintest"
)

// admin is the notes module behind a real Admin API server over a real
// database, with people signing in through a real issuer: in organization
// default ana (owner), val (approver) and vic (viewer) with the project web
// and the note "deploy"; in organization acme bo with the project rocket and
// its note "plan".
type admin struct {
	d      *db.DB
	notes  *notes.Module
	iss    *authtest.Issuer
	cfg    *boot.Config
	server *httptest.Server
}

func newAdmin(t *testing.T) *admin {
	t.Helper()
	ctx := context.Background()
	a := &admin{d: pgtest.New(t), iss: authtest.New(t), notes: notes.New()}
	var err error
	a.cfg, err = boot.Load(func(string) string { return "" })
	require.NoError(t, err)
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	log := ledger.New(nil)
	ms := mandate.NewService(keys, nil)
	ident := identity.NewService(a.d, log, ms, nil)
	auth := auth.NewAdmin(ident, auth.Options{Issuer: plugintest.Issuer(t, a.iss), Audience: a.cfg.AdminAudience, RequireMFA: true})
	k := kernel.New(kernel.Deps{DB: a.d, Log: log, Mandates: ms, Identity: ident, Config: a.cfg, AdminAuth: auth})
	require.NoError(t, k.Register(a.notes))
	a.server = httptest.NewServer(k.Handler())
	t.Cleanup(a.server.Close)

	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	for id, role := range map[string]identity.Role{"val": identity.Approver, "vic": identity.Viewer} {
		_, err = ident.AddHuman(ctx, "ana", identity.HumanInput{ID: id, Name: id, Role: role, Email: id + "@example.com"})
		require.NoError(t, err)
	}
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	body := "Run make deploy"
	_, err = a.notes.Write(ctx, "ana", "web", "deploy", nil, &body)
	require.NoError(t, err)
	_, err = a.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	require.NoError(t, err)
	body = "Go to the moon"
	_, err = a.notes.Write(ctx, "bo", "rocket", "plan", nil, &body)
	require.NoError(t, err)
	return a
}

type reply struct {
	status int
	raw    string
	body   map[string]any
}

func (a *admin) call(t *testing.T, as, method, path, body string) reply {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.server.URL+"/admin/api"+path, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+a.iss.Token(t, authtest.Claims{Subject: "sub-" + as, Email: as + "@example.com",
		EmailVerified: true, Audience: []string{a.cfg.AdminAudience}}))
	resp, err := a.server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := reply{status: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (a *admin) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, a.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

// version is the id of the newest version of note key in project.
func (a *admin) version(t *testing.T, project, key string) int {
	return a.count(t, `SELECT max(id) FROM context_note_versions WHERE project_id = ? AND key = ?`, project, key)
}

func TestNoteOperationsForEachRole(t *testing.T) {
	a := newAdmin(t)
	roles := []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}}
	ops := []struct {
		method, path, body string
		min                identity.Role
	}{
		{"GET", "/projects/web/context", "", identity.Viewer},
		{"GET", "/projects/web/context?archived=1", "", identity.Viewer},
		{"GET", "/projects/web/context/deploy", "", identity.Viewer},
		{"PUT", "/projects/web/context/deploy", `{"body": "Run make ship"}`, identity.Approver},
		{"POST", "/projects/web/context/deploy/pin", "", identity.Approver},
		{"POST", "/projects/web/context/deploy/unpin", "", identity.Approver},
		{"POST", "/projects/web/context/deploy/archive", "", identity.Approver},
		{"POST", "/context-versions/{version}/erase", "", identity.Owner},
	}
	for _, o := range ops {
		for _, r := range roles {
			t.Run(o.method+o.path+"/"+string(r.role), func(t *testing.T) {
				entries := a.count(t, `SELECT count(*) FROM entries WHERE outcome = 'ok' AND action LIKE 'admin.context.%'`)
				path := strings.ReplaceAll(o.path, "{version}", fmt.Sprint(a.version(t, "web", "deploy")))
				got := a.call(t, r.id, o.method, path, o.body)
				if r.role.AtLeast(o.min) {
					require.Equal(t, http.StatusOK, got.status, got.raw)
					return
				}
				require.Equal(t, http.StatusForbidden, got.status, got.raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs %s", r.id, r.role, o.min)}, got.body)
				require.Equal(t, entries, a.count(t, `SELECT count(*) FROM entries WHERE outcome = 'ok' AND action LIKE 'admin.context.%'`))
			})
		}
	}
}

func TestPeopleWriteReadPinAndArchiveNotes(t *testing.T) {
	a := newAdmin(t)
	got := a.call(t, "val", "PUT", "/projects/web/context/deploy", `{"title": " How we deploy ", "body": "Use password=hunter2 then make ship"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, map[string]any{"ok": true, "project_id": "web", "key": "deploy", "version": 2.0, "archived": false}, got.body)
	got = a.call(t, "val", "PUT", "/projects/web/context/links", `{"body": "https://example.com"}`)
	require.Equal(t, 1.0, got.body["version"])

	require.Equal(t, 200, a.call(t, "val", "POST", "/projects/web/context/links/pin", "").status)
	got = a.call(t, "val", "PUT", "/projects/web/context/links", `{"body": "people edit pinned notes"}`)
	require.Equal(t, 200, got.status, got.raw)

	list := a.call(t, "vic", "GET", "/projects/web/context", "")
	require.Equal(t, 200, list.status, list.raw)
	notes := list.body["notes"].([]any)
	require.Len(t, notes, 2)
	require.Equal(t, "links", notes[0].(map[string]any)["key"], "pinned first")
	require.Equal(t, true, notes[0].(map[string]any)["pinned"])
	require.NotContains(t, notes[1].(map[string]any), "body", "lists carry no bodies")
	require.Equal(t, "How we deploy", notes[1].(map[string]any)["title"])

	got = a.call(t, "val", "POST", "/projects/web/context/links/archive", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, map[string]any{"ok": true, "project_id": "web", "key": "links", "version": 3.0, "archived": true}, got.body)
	require.Len(t, a.call(t, "vic", "GET", "/projects/web/context", "").body["notes"], 1, "archived notes leave the list")
	all := a.call(t, "vic", "GET", "/projects/web/context?archived=1", "").body["notes"].([]any)
	require.Len(t, all, 2)
	require.NotNil(t, all[0].(map[string]any)["archived_at"])

	one := a.call(t, "vic", "GET", "/projects/web/context/links", "")
	require.Equal(t, 200, one.status, one.raw)
	note := one.body["note"].(map[string]any)
	require.Equal(t, "people edit pinned notes", note["body"], "an archived note is still read by people")
	require.NotNil(t, note["archived_at"])
	versions := one.body["versions"].([]any)
	require.Len(t, versions, 3)
	for i, v := range versions {
		require.Equal(t, float64(3-i), v.(map[string]any)["version"], "newest first")
	}
	require.Equal(t, true, versions[0].(map[string]any)["archived"])
	require.Equal(t, "human:val", versions[0].(map[string]any)["updated_by"])

	deploy := a.call(t, "vic", "GET", "/projects/web/context/deploy", "")
	require.NotContains(t, deploy.raw, "hunter2", "secrets are redacted")

	require.Equal(t, 200, a.call(t, "val", "POST", "/projects/web/context/links/unpin", "").status)
	got = a.call(t, "val", "PUT", "/projects/web/context/links", `{"body": "back"}`)
	require.Equal(t, 200, got.status)
	require.Len(t, a.call(t, "vic", "GET", "/projects/web/context", "").body["notes"], 2, "writing again un-archives")
	require.Equal(t, 0, a.count(t, `SELECT count(*) FROM context_notes WHERE pinned`))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.context.archive' AND outcome = 'ok'`))

	got = a.call(t, "val", "POST", "/projects/web/context/ghost/archive", "")
	require.Equal(t, 404, got.status)
	require.Equal(t, map[string]any{"error": "not_found", "message": "project web has no note ghost"}, got.body)
	require.Equal(t, 404, a.call(t, "val", "POST", "/projects/web/context/ghost/pin", "").status)
	require.Equal(t, 404, a.call(t, "vic", "GET", "/projects/web/context/ghost", "").status)
}

func TestOwnersEraseANoteVersion(t *testing.T) {
	a := newAdmin(t)
	got := a.call(t, "val", "PUT", "/projects/web/context/deploy", `{"body": "the secret plan"}`)
	require.Equal(t, 200, got.status)
	id := a.version(t, "web", "deploy")
	got = a.call(t, "ana", "POST", fmt.Sprintf("/context-versions/%d/erase", id), "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, map[string]any{"project_id": "web", "key": "deploy", "version": 2.0, "payloads_erased": 1.0}, got.body)
	one := a.call(t, "vic", "GET", "/projects/web/context/deploy", "")
	require.Equal(t, "[erased]", one.body["note"].(map[string]any)["body"])
	v := one.body["versions"].([]any)[0].(map[string]any)
	require.Nil(t, v["body"])
	require.NotNil(t, v["erased_at"])
	require.Equal(t, "Run make deploy", one.body["versions"].([]any)[1].(map[string]any)["body"], "other versions stay")
	require.Equal(t, 0, a.count(t, `SELECT count(*) FROM payloads WHERE content::text LIKE '%the secret plan%'`))

	got = a.call(t, "ana", "POST", fmt.Sprintf("/context-versions/%d/erase", id), "")
	require.Equal(t, 404, got.status, "once only")
	require.Equal(t, map[string]any{"error": "not_found", "message": fmt.Sprintf("note version %d does not exist", id)}, got.body)
}

func TestNoteBadInput(t *testing.T) {
	a := newAdmin(t)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"MalformedJSON", "PUT", "/projects/web/context/deploy", `{"body": `, 400},
		{"UnknownField", "PUT", "/projects/web/context/deploy", `{"body": "x", "pinned": true}`, 422},
		{"WrongType", "PUT", "/projects/web/context/deploy", `{"body": 7}`, 422},
		{"NoBody", "PUT", "/projects/web/context/deploy", `{"title": "T"}`, 422},
		{"BlankBody", "PUT", "/projects/web/context/deploy", `{"body": "   "}`, 400},
		{"LongBody", "PUT", "/projects/web/context/deploy", `{"body": "` + strings.Repeat("x", 20001) + `"}`, 422},
		{"Oversize", "PUT", "/projects/web/context/deploy", `{"body": "` + strings.Repeat("x", 300<<10) + `"}`, 413},
		{"KeyShape", "PUT", "/projects/web/context/Deploy", `{"body": "x"}`, 422},
		{"ProjectShape", "GET", "/projects/Web/context", "", 422},
		{"VersionShape", "POST", "/context-versions/abc/erase", "", 422},
		{"VersionZero", "POST", "/context-versions/0/erase", "", 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := a.call(t, "ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, "invalid_request", got.body["error"], got.raw)
		})
	}
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM context_note_versions WHERE project_id = 'web'`), "nothing was written")
}

func TestAnotherOrganizationsNotesAnswerLikeMissingOnes(t *testing.T) {
	a := newAdmin(t)
	plan := a.version(t, "rocket", "plan")
	for _, tc := range []struct{ method, foreign, missing, body string }{
		{"GET", "/projects/rocket/context", "/projects/nowhere/context", ""},
		{"GET", "/projects/rocket/context/plan", "/projects/nowhere/context/plan", ""},
		{"PUT", "/projects/rocket/context/plan", "/projects/nowhere/context/plan", `{"body": "mine now"}`},
		{"POST", "/projects/rocket/context/plan/pin", "/projects/nowhere/context/plan/pin", ""},
		{"POST", "/projects/rocket/context/plan/archive", "/projects/nowhere/context/plan/archive", ""},
		{"POST", fmt.Sprintf("/context-versions/%d/erase", plan), fmt.Sprintf("/context-versions/%d/erase", plan+1000), ""},
	} {
		other := a.call(t, "ana", tc.method, tc.foreign, tc.body)
		none := a.call(t, "ana", tc.method, tc.missing, tc.body)
		require.Equal(t, http.StatusNotFound, other.status, other.raw)
		require.Equal(t, strings.NewReplacer("nowhere", "?", fmt.Sprint(plan+1000), "?").Replace(none.raw),
			strings.NewReplacer("rocket", "?", fmt.Sprint(plan), "?").Replace(other.raw))
	}
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM context_notes WHERE project_id = 'rocket' AND body = 'Go to the moon'
		AND NOT pinned AND archived_at IS NULL AND version = 1`))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM context_note_versions WHERE project_id = 'rocket' AND erased_at IS NULL`))
}
