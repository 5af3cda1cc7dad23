package people_test

import (
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMe(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "GET", "/me", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.JSONEq(t, `{"id": "val", "name": "Val", "role": "approver", "email": "val@example.com",
		"org": {"id": "default", "name": "Default organization", "halted": false}, "language": null, "reads_in": "en"}`, got.Raw)
}

func TestHumans(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("vic", "GET", "/humans", "")
	require.Equal(t, 200, got.Status)
	var ids []string
	for _, h := range got.Body["humans"].([]any) {
		ids = append(ids, h.(map[string]any)["id"].(string))
	}
	require.Equal(t, []string{"ana", "val", "vic"}, ids, "only the caller's organization, by id")

	got = b.Admin("ana", "POST", "/humans", `{"id": "zoe", "name": " Zoe ", "email": "zoe@example.com"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, "viewer", got.Body["role"], "invited as viewer by default")
	require.Equal(t, "Zoe", got.Body["name"])
	require.Equal(t, 403, b.Admin("zoe", "GET", "/me", "").Status, "an invitation is accepted, never taken by signing in")
	require.Equal(t, 200, b.Admin("zoe", "POST", "/invitations/zoe/accept", "").Status, "the account with the verified email accepts")
	require.Equal(t, 200, b.Admin("zoe", "GET", "/me", "").Status)

	// A role the invitation names is the role the person gets.
	got = b.Admin("ana", "POST", "/humans", `{"id": "amy", "name": "Amy", "role": "approver", "email": "amy@example.com"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, "approver", got.Body["role"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM humans WHERE id = 'amy' AND role = 'approver'`))

	got = b.Admin("ana", "POST", "/humans", `{"id": "bo", "name": "Bo", "email": "bo2@example.com"}`)
	require.Equal(t, http.StatusConflict, got.Status)
	require.Equal(t, "id_taken", got.Body["error"], "ids are global")

	got = b.Admin("ana", "PATCH", "/humans/zoe", `{"email": "zoe@new.example.com", "role": "approver"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "approver", got.Body["role"])
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM humans WHERE id = 'zoe' AND auth_sub IS NOT NULL`), "a new email unbinds")
	require.Equal(t, 403, b.Admin("zoe", "GET", "/me", "").Status, "the old address no longer signs in")

	got = b.Admin("ana", "PATCH", "/humans/ana", `{"role": "viewer"}`)
	require.Equal(t, http.StatusBadRequest, got.Status)
	require.Equal(t, "invalid_request", got.Body["error"])
	require.Contains(t, got.Body["message"], "active owner")

	got = b.Admin("ana", "PATCH", "/humans/vic", `{}`)
	require.Equal(t, http.StatusBadRequest, got.Status)
	require.Contains(t, got.Body["message"], "name something to change")

	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.human.update' AND outcome = 'ok'`))
	require.Equal(t, 2, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.human.update' AND outcome = 'invalid_request'`),
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
			got := b.Admin("ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
		})
	}
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM humans WHERE id = 'x'`))
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM projects WHERE id = 'x'`))
}

func TestProjects(t *testing.T) {
	b := newBoard(t)
	reg := b.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	// The board's rows: a module's test may not import the board to post them.
	b.Exec(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
		SELECT gen_random_uuid(), 'web', 't', 'code-web', ?, s FROM unnest(ARRAY['submitted', 'auth_required', 'completed', 'canceled']) s`,
		reg.RootMandateID)

	got := b.Admin("ana", "POST", "/projects", `{"id": "api", "name": "API", "production": true}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, true, got.Body["production"])

	got = b.Admin("vic", "GET", "/projects", "")
	require.Equal(t, 200, got.Status)
	ps := got.Body["projects"].([]any)
	require.Len(t, ps, 2, "rocket is acme's")
	require.Equal(t, "api", ps[0].(map[string]any)["id"])
	require.Equal(t, "web", ps[1].(map[string]any)["id"])
	require.Equal(t, 2.0, ps[1].(map[string]any)["open_tasks"])

	got = b.Admin("ana", "PATCH", "/projects/web", `{"frozen": true}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, true, got.Body["frozen"])
	require.Equal(t, 2.0, got.Body["open_tasks"])
}

func TestOrgSettingsNeverShowTheWebhook(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("vic", "GET", "/org", "")
	require.Equal(t, 200, got.Status)
	require.Equal(t, map[string]any{"configured": false, "hint": nil}, got.Body["slack"])

	hook := "https://hooks.slack.com/services/T0/B0/" + "secretsecret" + "wxyz"
	got = b.Admin("ana", "PUT", "/org", `{"name": " Renamed ", "slack_webhook_url": "`+hook+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "Renamed", got.Body["name"])
	require.Equal(t, map[string]any{"configured": true, "hint": "…wxyz"}, got.Body["slack"])
	require.NotContains(t, got.Raw, "secretsecret")
	for _, path := range []string{"/org", "/me"} {
		require.NotContains(t, b.Admin("vic", "GET", path, "").Raw, "secretsecret")
	}

	got = b.Admin("ana", "PUT", "/org", `{"name": "Renamed again"}`)
	require.Equal(t, true, got.Body["slack"].(map[string]any)["configured"], "absent leaves the webhook")
	got = b.Admin("ana", "PUT", "/org", `{"slack_webhook_url": null}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"configured": false, "hint": nil}, got.Body["slack"], "null clears")

	for _, bad := range []string{"http://hooks.slack.com/services/T/B/x", "https://hooks.slack.com.evil/services/T/B/x",
		"https://hooks.slack.com/services/T/B/x?y=1", "https://hooks.slack.com/services/"} {
		got = b.Admin("ana", "PUT", "/org", `{"slack_webhook_url": "`+bad+`"}`)
		require.Equal(t, http.StatusBadRequest, got.Status, bad)
		require.Equal(t, "invalid_request", got.Body["error"])
	}
	got = b.Admin("ana", "PUT", "/org", `{"name": ""}`)
	require.Equal(t, http.StatusBadRequest, got.Status)
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM payloads WHERE content::text LIKE '%secretsecret%'`))
}

func TestKillSwitch(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("ana", "POST", "/kill-switch", `{"halted": true}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.JSONEq(t, `{"halted": true}`, got.Raw)
	me := b.Admin("vic", "GET", "/me", "")
	require.Equal(t, true, me.Body["org"].(map[string]any)["halted"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM orgs WHERE halted`), "only ana's organization")
	require.Equal(t, 200, b.Admin("ana", "POST", "/kill-switch", `{"halted": false}`).Status)
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM orgs WHERE halted`))
}

func TestAnotherOrganizationsIDsAnswerLikeMissingOnes(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct{ path, foreign, missing, body string }{
		{"/humans/", "bo", "nobody", `{"name": "X"}`},
		{"/projects/", "rocket", "nowhere", `{"frozen": true}`},
	} {
		other := b.Admin("ana", "PATCH", tc.path+tc.foreign, tc.body)
		missing := b.Admin("ana", "PATCH", tc.path+tc.missing, tc.body)
		require.Equal(t, http.StatusNotFound, other.Status)
		require.Equal(t, missing.Status, other.Status)
		require.Equal(t, strings.ReplaceAll(missing.Raw, tc.missing, "?"), strings.ReplaceAll(other.Raw, tc.foreign, "?"))
	}
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM humans WHERE id = 'bo' AND name = 'Bo'`))
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM projects WHERE frozen`))
}

// Giving someone an email another person of the organization has, in any
// case, is refused with id_taken naming the email, the answer an owner can
// act on (not the database's "human vic is already taken"), and logged as
// that refusal; vic keeps the address they had.
func TestUpdateHumanToATakenEmailSaysTheEmailIsTaken(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("ana", "PATCH", "/humans/vic", `{"email": "ANA@example.com"}`)
	require.Equal(t, 409, got.Status, got.Raw)
	require.Equal(t, map[string]any{"error": "id_taken", "message": "email ANA@example.com is already someone's in this organization"}, got.Body)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM humans WHERE id = 'vic' AND email = 'vic@example.com'`))
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.human.update' AND outcome = 'id_taken'`))
}
