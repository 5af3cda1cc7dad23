package notes_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/notes"
)

// admin is the notes module behind the Admin API of a kerneltest board: in
// organization default ana (owner), val (approver) and vic (viewer) with
// the project web and the note "deploy"; in another organization bo with
// the project rocket and its note "plan".
type admin struct {
	*kerneltest.World
	notes *notes.Module
}

func newAdmin(t *testing.T) *admin {
	t.Helper()
	ctx := context.Background()
	a := &admin{notes: notes.New()}
	a.World = kerneltest.New(t, kerneltest.Options{}, a.notes)
	a.Person("", "ana", identity.Owner)
	a.Person("ana", "val", identity.Approver)
	a.Person("ana", "vic", identity.Viewer)
	a.Project("ana", "web", false)
	body := "Run make deploy"
	_, err := a.notes.Service().Write(ctx, "ana", "web", "deploy", nil, &body)
	require.NoError(t, err)
	a.Org("acme", "bo")
	a.Project("bo", "rocket", false)
	body = "Go to the moon"
	_, err = a.notes.Service().Write(ctx, "bo", "rocket", "plan", nil, &body)
	require.NoError(t, err)
	return a
}

// version is the id of the newest version of note key in project.
func (a *admin) version(t *testing.T, project, key string) int {
	return a.Count(`SELECT max(id) FROM context_note_versions WHERE project_id = ? AND key = ?`, project, key)
}

func TestNoteOperationsForEachRole(t *testing.T) {
	a := newAdmin(t)
	roles := kerneltest.Staff()
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
			t.Run(o.method+o.path+"/"+string(r.Role), func(t *testing.T) {
				entries := a.Count(`SELECT count(*) FROM entries WHERE outcome = 'ok' AND action LIKE 'admin.context.%'`)
				path := strings.ReplaceAll(o.path, "{version}", fmt.Sprint(a.version(t, "web", "deploy")))
				got := a.Admin(r.ID, o.method, path, o.body)
				if r.Role.AtLeast(o.min) {
					require.Equal(t, http.StatusOK, got.Status, got.Raw)
					return
				}
				kerneltest.RequireBelowRole(t, got, r, o.min)
				require.Equal(t, entries, a.Count(`SELECT count(*) FROM entries WHERE outcome = 'ok' AND action LIKE 'admin.context.%'`))
			})
		}
	}
}

func TestPeopleWriteReadPinAndArchiveNotes(t *testing.T) {
	a := newAdmin(t)
	got := a.Admin("val", "PUT", "/projects/web/context/deploy", `{"title": " How we deploy ", "body": "Use password=hunter2 then make ship"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"ok": true, "project_id": "web", "key": "deploy", "version": 2.0, "archived": false}, got.Body)
	got = a.Admin("val", "PUT", "/projects/web/context/links", `{"body": "https://example.com"}`)
	require.Equal(t, 1.0, got.Body["version"])

	require.Equal(t, 200, a.Admin("val", "POST", "/projects/web/context/links/pin", "").Status)
	got = a.Admin("val", "PUT", "/projects/web/context/links", `{"body": "people edit pinned notes"}`)
	require.Equal(t, 200, got.Status, got.Raw)

	list := a.Admin("vic", "GET", "/projects/web/context", "")
	require.Equal(t, 200, list.Status, list.Raw)
	notes := list.Body["notes"].([]any)
	require.Len(t, notes, 2)
	require.Equal(t, "links", notes[0].(map[string]any)["key"], "pinned first")
	require.Equal(t, true, notes[0].(map[string]any)["pinned"])
	require.NotContains(t, notes[1].(map[string]any), "body", "lists carry no bodies")
	require.Equal(t, "How we deploy", notes[1].(map[string]any)["title"])

	got = a.Admin("val", "POST", "/projects/web/context/links/archive", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"ok": true, "project_id": "web", "key": "links", "version": 3.0, "archived": true}, got.Body)
	require.Len(t, a.Admin("vic", "GET", "/projects/web/context", "").Body["notes"], 1, "archived notes leave the list")
	all := a.Admin("vic", "GET", "/projects/web/context?archived=1", "").Body["notes"].([]any)
	require.Len(t, all, 2)
	require.NotNil(t, all[0].(map[string]any)["archived_at"])

	one := a.Admin("vic", "GET", "/projects/web/context/links", "")
	require.Equal(t, 200, one.Status, one.Raw)
	note := one.Body["note"].(map[string]any)
	require.Equal(t, "people edit pinned notes", note["body"], "an archived note is still read by people")
	require.NotNil(t, note["archived_at"])
	versions := one.Body["versions"].([]any)
	require.Len(t, versions, 3)
	for i, v := range versions {
		require.Equal(t, float64(3-i), v.(map[string]any)["version"], "newest first")
	}
	require.Equal(t, true, versions[0].(map[string]any)["archived"])
	require.Equal(t, "human:val", versions[0].(map[string]any)["updated_by"])

	deploy := a.Admin("vic", "GET", "/projects/web/context/deploy", "")
	require.NotContains(t, deploy.Raw, "hunter2", "secrets are redacted")

	require.Equal(t, 200, a.Admin("val", "POST", "/projects/web/context/links/unpin", "").Status)
	got = a.Admin("val", "PUT", "/projects/web/context/links", `{"body": "back"}`)
	require.Equal(t, 200, got.Status)
	require.Len(t, a.Admin("vic", "GET", "/projects/web/context", "").Body["notes"], 2, "writing again un-archives")
	require.Equal(t, 0, a.Count(`SELECT count(*) FROM context_notes WHERE pinned`))
	require.Equal(t, 1, a.Count(`SELECT count(*) FROM entries WHERE action = 'admin.context.archive' AND outcome = 'ok'`))

	got = a.Admin("val", "POST", "/projects/web/context/ghost/archive", "")
	require.Equal(t, 404, got.Status)
	require.Equal(t, map[string]any{"error": "not_found", "message": "project web has no note ghost"}, got.Body)
	require.Equal(t, 404, a.Admin("val", "POST", "/projects/web/context/ghost/pin", "").Status)
	require.Equal(t, 404, a.Admin("vic", "GET", "/projects/web/context/ghost", "").Status)
}

func TestOwnersEraseANoteVersion(t *testing.T) {
	a := newAdmin(t)
	got := a.Admin("val", "PUT", "/projects/web/context/deploy", `{"body": "the secret plan"}`)
	require.Equal(t, 200, got.Status)
	id := a.version(t, "web", "deploy")
	got = a.Admin("ana", "POST", fmt.Sprintf("/context-versions/%d/erase", id), "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"project_id": "web", "key": "deploy", "version": 2.0, "payloads_erased": 1.0}, got.Body)
	one := a.Admin("vic", "GET", "/projects/web/context/deploy", "")
	require.Equal(t, "[erased]", one.Body["note"].(map[string]any)["body"])
	v := one.Body["versions"].([]any)[0].(map[string]any)
	require.Nil(t, v["body"])
	require.NotNil(t, v["erased_at"])
	require.Equal(t, "Run make deploy", one.Body["versions"].([]any)[1].(map[string]any)["body"], "other versions stay")
	require.Equal(t, 0, a.Count(`SELECT count(*) FROM payloads WHERE content::text LIKE '%the secret plan%'`))

	got = a.Admin("ana", "POST", fmt.Sprintf("/context-versions/%d/erase", id), "")
	require.Equal(t, 404, got.Status, "once only")
	require.Equal(t, map[string]any{"error": "not_found", "message": fmt.Sprintf("note version %d does not exist", id)}, got.Body)
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
			got := a.Admin("ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
		})
	}
	require.Equal(t, 1, a.Count(`SELECT count(*) FROM context_note_versions WHERE project_id = 'web'`), "nothing was written")
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
		other := a.Admin("ana", tc.method, tc.foreign, tc.body)
		none := a.Admin("ana", tc.method, tc.missing, tc.body)
		require.Equal(t, http.StatusNotFound, other.Status, other.Raw)
		require.Equal(t, strings.NewReplacer("nowhere", "?", fmt.Sprint(plan+1000), "?").Replace(none.Raw),
			strings.NewReplacer("rocket", "?", fmt.Sprint(plan), "?").Replace(other.Raw))
	}
	require.Equal(t, 1, a.Count(`SELECT count(*) FROM context_notes WHERE project_id = 'rocket' AND body = 'Go to the moon'
		AND NOT pinned AND archived_at IS NULL AND version = 1`))
	require.Equal(t, 1, a.Count(`SELECT count(*) FROM context_note_versions WHERE project_id = 'rocket' AND erased_at IS NULL`))
}
