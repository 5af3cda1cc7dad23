package people_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
)

func TestMe(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "val", "GET", "/me", "")
	require.Equal(t, 200, got.status, got.raw)
	require.JSONEq(t, `{"id": "val", "name": "Val", "role": "approver", "email": "val@example.com",
		"org": {"id": "default", "name": "Default organization", "halted": false}}`, got.raw)
}

func TestHumans(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "vic", "GET", "/humans", "")
	require.Equal(t, 200, got.status)
	var ids []string
	for _, h := range got.body["humans"].([]any) {
		ids = append(ids, h.(map[string]any)["id"].(string))
	}
	require.Equal(t, []string{"ana", "val", "vic"}, ids, "only the caller's organization, by id")

	got = b.call(t, "ana", "POST", "/humans", `{"id": "zoe", "name": " Zoe ", "email": "zoe@example.com"}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	require.Equal(t, "viewer", got.body["role"], "invited as viewer by default")
	require.Equal(t, "Zoe", got.body["name"])
	require.Equal(t, 200, b.call(t, "zoe", "GET", "/me", "").status, "the invitee signs in with their verified email")

	got = b.call(t, "ana", "POST", "/humans", `{"id": "bo", "name": "Bo", "email": "bo2@example.com"}`)
	require.Equal(t, http.StatusConflict, got.status)
	require.Equal(t, "id_taken", got.body["error"], "ids are global")

	got = b.call(t, "ana", "PATCH", "/humans/zoe", `{"email": "zoe@new.example.com", "role": "approver"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "approver", got.body["role"])
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM humans WHERE id = 'zoe' AND auth_sub IS NOT NULL`), "a new email unbinds")
	require.Equal(t, 403, b.call(t, "zoe", "GET", "/me", "").status, "the old address no longer signs in")

	got = b.call(t, "ana", "PATCH", "/humans/ana", `{"role": "viewer"}`)
	require.Equal(t, http.StatusBadRequest, got.status)
	require.Equal(t, "invalid_request", got.body["error"])
	require.Contains(t, got.body["message"], "active owner")

	got = b.call(t, "ana", "PATCH", "/humans/vic", `{}`)
	require.Equal(t, http.StatusBadRequest, got.status)
	require.Contains(t, got.body["message"], "name something to change")

	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.human.update' AND outcome = 'ok'`))
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.human.update' AND outcome = 'invalid_request'`),
		"refusals are logged with their code")
}

func TestBadInput(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"MalformedJSON", "POST", "/humans", `{"id": `, http.StatusBadRequest},
		{"UnknownField", "POST", "/humans", `{"id": "x", "name": "X", "email": "x@example.com", "admin": true}`, http.StatusUnprocessableEntity},
		{"WrongType", "POST", "/projects", `{"id": "x", "name": "X", "production": "yes"}`, http.StatusUnprocessableEntity},
		{"BlankName", "POST", "/projects", `{"id": "x", "name": "  "}`, http.StatusBadRequest},
		{"BadRole", "PATCH", "/humans/vic", `{"role": "admin"}`, http.StatusUnprocessableEntity},
		{"IDShape", "PATCH", "/humans/Not%20OK", `{"name": "X"}`, http.StatusUnprocessableEntity},
		{"ProjectIDShape", "PATCH", "/projects/UPPER", `{"frozen": true}`, http.StatusUnprocessableEntity},
		{"Oversize", "PUT", "/org", `{"name": "` + strings.Repeat("n", 20<<10) + `"}`, http.StatusRequestEntityTooLarge},
		{"NoFlag", "PATCH", "/projects/web", `{}`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.call(t, "ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, "invalid_request", got.body["error"], got.raw)
		})
	}
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM humans WHERE id = 'x'`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM projects WHERE id = 'x'`))
}

func TestProjects(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	reg, err := b.ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = b.d.ExecContext(ctx, `INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
		SELECT gen_random_uuid(), 'web', 't', 'code-web', ?, s FROM unnest(ARRAY['submitted', 'auth_required', 'completed', 'canceled']) s`,
		reg.RootMandateID)
	require.NoError(t, err)

	got := b.call(t, "ana", "POST", "/projects", `{"id": "api", "name": "API", "production": true}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	require.Equal(t, true, got.body["production"])

	got = b.call(t, "vic", "GET", "/projects", "")
	require.Equal(t, 200, got.status)
	ps := got.body["projects"].([]any)
	require.Len(t, ps, 2, "rocket is acme's")
	require.Equal(t, "api", ps[0].(map[string]any)["id"])
	require.Equal(t, "web", ps[1].(map[string]any)["id"])
	require.Equal(t, 2.0, ps[1].(map[string]any)["open_tasks"])

	got = b.call(t, "ana", "PATCH", "/projects/web", `{"frozen": true}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, true, got.body["frozen"])
	require.Equal(t, 2.0, got.body["open_tasks"])
}

func TestOrgSettingsNeverShowTheWebhook(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "vic", "GET", "/org", "")
	require.Equal(t, 200, got.status)
	require.Equal(t, map[string]any{"configured": false, "hint": nil}, got.body["slack"])

	hook := "https://hooks.slack.com/services/T0/B0/" + "secretsecret" + "wxyz"
	got = b.call(t, "ana", "PUT", "/org", `{"name": " Renamed ", "slack_webhook_url": "`+hook+`"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "Renamed", got.body["name"])
	require.Equal(t, map[string]any{"configured": true, "hint": "…wxyz"}, got.body["slack"])
	require.NotContains(t, got.raw, "secretsecret")
	for _, path := range []string{"/org", "/me"} {
		require.NotContains(t, b.call(t, "vic", "GET", path, "").raw, "secretsecret")
	}

	got = b.call(t, "ana", "PUT", "/org", `{"name": "Renamed again"}`)
	require.Equal(t, true, got.body["slack"].(map[string]any)["configured"], "absent leaves the webhook")
	got = b.call(t, "ana", "PUT", "/org", `{"slack_webhook_url": null}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, map[string]any{"configured": false, "hint": nil}, got.body["slack"], "null clears")

	for _, bad := range []string{"http://hooks.slack.com/services/T/B/x", "https://hooks.slack.com.evil/services/T/B/x",
		"https://hooks.slack.com/services/T/B/x?y=1", "https://hooks.slack.com/services/"} {
		got = b.call(t, "ana", "PUT", "/org", `{"slack_webhook_url": "`+bad+`"}`)
		require.Equal(t, http.StatusBadRequest, got.status, bad)
		require.Equal(t, "invalid_request", got.body["error"])
	}
	got = b.call(t, "ana", "PUT", "/org", `{"name": ""}`)
	require.Equal(t, http.StatusBadRequest, got.status)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM payloads WHERE content::text LIKE '%secretsecret%'`))
}

func TestKillSwitch(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "ana", "POST", "/kill-switch", `{"halted": true}`)
	require.Equal(t, 200, got.status, got.raw)
	require.JSONEq(t, `{"halted": true}`, got.raw)
	me := b.call(t, "vic", "GET", "/me", "")
	require.Equal(t, true, me.body["org"].(map[string]any)["halted"])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM orgs WHERE halted`), "only ana's organization")
	require.Equal(t, 200, b.call(t, "ana", "POST", "/kill-switch", `{"halted": false}`).status)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM orgs WHERE halted`))
}

func TestAnotherOrganizationsIDsAnswerLikeMissingOnes(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct{ path, foreign, missing, body string }{
		{"/humans/", "bo", "nobody", `{"name": "X"}`},
		{"/projects/", "rocket", "nowhere", `{"frozen": true}`},
	} {
		other := b.call(t, "ana", "PATCH", tc.path+tc.foreign, tc.body)
		missing := b.call(t, "ana", "PATCH", tc.path+tc.missing, tc.body)
		require.Equal(t, http.StatusNotFound, other.status)
		require.Equal(t, missing.status, other.status)
		require.Equal(t, strings.ReplaceAll(missing.raw, tc.missing, "?"), strings.ReplaceAll(other.raw, tc.foreign, "?"))
	}
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM humans WHERE id = 'bo' AND name = 'Bo'`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM projects WHERE frozen`))
}
