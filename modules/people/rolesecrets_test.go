package people_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// SEC-006: a role's secret settings (DATABASE_URL, *_TOKEN, …) are stored
// sealed, shown to no one by the Admin API, kept when saved back as shown,
// and handed in clear only to the agent redeeming its setup code.
func TestRoleSecretsAreSealedAndOnlyConnectOpensThem(t *testing.T) {
	b := newBoard(t)
	const dbURL, token = "postgres://app:hunter2@db/app", "ghp_rolesecret"
	clear := func(t *testing.T, raw string) {
		t.Helper()
		require.NotContains(t, raw, "hunter2")
		require.NotContains(t, raw, "rolesecret")
	}
	got := b.Admin("val", "PUT", "/roles/dbrunner", `{"name": "DB runner", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "`+dbURL+`", "PACT_RUNNER_GITHUB_TOKEN": "`+token+`", "PACT_RUNNER_MAX_TURNS": "5"}}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	clear(t, got.Raw)
	require.Zero(t, b.Count(`SELECT count(*) FROM agent_roles WHERE settings::text LIKE '%hunter2%' OR settings::text LIKE '%rolesecret%'`),
		"no secret is stored in clear")
	require.Equal(t, 2, b.Count(`SELECT count(*) FROM agent_roles, jsonb_each_text(settings) kv
		WHERE id = 'dbrunner' AND kv.value LIKE 'sealed:v1:%'`), "both secrets are sealed")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_roles WHERE id = 'dbrunner' AND settings->>'PACT_RUNNER_MAX_TURNS' = '5'`),
		"the other settings stay readable")
	for _, who := range []string{"vic", "val", "ana"} {
		got = b.Admin(who, "GET", "/roles", "")
		require.Equal(t, http.StatusOK, got.Status, got.Raw)
		clear(t, got.Raw)
		require.Contains(t, got.Raw, `"DATABASE_URL":"[REDACTED]"`)
		require.Contains(t, got.Raw, `"PACT_RUNNER_GITHUB_TOKEN":"[REDACTED]"`)
	}

	// Saved back as the Admin API shows it, the role keeps its secrets.
	got = b.Admin("val", "PUT", "/roles/dbrunner", `{"name": "DB runner", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "[REDACTED]", "PACT_RUNNER_GITHUB_TOKEN": "[REDACTED]", "PACT_RUNNER_MAX_TURNS": "6"}}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	got = b.Admin("val", "PUT", "/roles/other", `{"name": "Other", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "[REDACTED]"}}`)
	require.Equal(t, http.StatusBadRequest, got.Status, "a role cannot keep a secret it never held: %s", got.Raw)

	got = b.Admin("val", "POST", "/agents/hire", `{"role": "dbrunner", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	clear(t, got.Raw)
	code := got.Body["connect"].(map[string]any)["code"].(string)
	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, map[string]any{"DATABASE_URL": dbURL, "PACT_RUNNER_GITHUB_TOKEN": token, "PACT_RUNNER_MAX_TURNS": "6"},
		got.Body["settings"], "the hired agent gets its settings in clear")
	require.Zero(t, b.Count(`SELECT count(*) FROM payloads WHERE content::text LIKE '%hunter2%' OR content::text LIKE '%rolesecret%'`),
		"the log never holds a secret setting")
}

// A secret setting saved before sealing is sealed at the board's next start
// and still reaches the agent hired from its role in clear.
func TestRoleSecretsSavedBeforeSealingAreSealedAtStart(t *testing.T) {
	b := newBoard(t)
	const dbURL = "postgres://app:oldsecret@db/app"
	b.Exec(`INSERT INTO agent_roles (org_id, id, name, client, actions, settings)
		SELECT org_id, 'old', 'Old', 'runner', '{task.work}', jsonb_build_object('DATABASE_URL', ?::text, 'PACT_RUNNER_MAX_TURNS', '5')
		FROM humans WHERE id = 'val'`, dbURL)
	n, err := b.mod.ResealRoleSettings(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Zero(t, b.Count(`SELECT count(*) FROM agent_roles WHERE settings::text LIKE '%oldsecret%'`))
	n, err = b.mod.ResealRoleSettings(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "nothing is left to seal")

	got := b.Admin("val", "POST", "/agents/hire", `{"role": "old", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	got = b.connectCode(t, `{"code": "`+got.Body["connect"].(map[string]any)["code"].(string)+`"}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, dbURL, got.Body["settings"].(map[string]any)["DATABASE_URL"])
}

// SEC-006: a secret setting saved blank is no secret. It is stored blank,
// shown blank (not as set), survives the start's resealing blank, and the
// hired agent gets it blank.
func TestABlankSecretSettingShowsAsUnset(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "PUT", "/roles/blank", `{"name": "Blank", "client": "runner", "actions": ["task.work"],
		"settings": {"PACT_RUNNER_GITHUB_TOKEN": "", "DATABASE_URL": "postgres://app:pw@db/app"}}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_roles WHERE id = 'blank' AND settings->>'PACT_RUNNER_GITHUB_TOKEN' = ''`),
		"a blank secret is stored blank, not sealed")
	got = b.Admin("vic", "GET", "/roles", "")
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Contains(t, got.Raw, `"PACT_RUNNER_GITHUB_TOKEN":""`, "shown as unset")
	require.Contains(t, got.Raw, `"DATABASE_URL":"[REDACTED]"`, "a secret with a value is shown as set")

	n, err := b.mod.ResealRoleSettings(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "nothing to seal again")

	got = b.Admin("val", "POST", "/agents/hire", `{"role": "blank", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	code := got.Body["connect"].(map[string]any)["code"].(string)
	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, "", got.Body["settings"].(map[string]any)["PACT_RUNNER_GITHUB_TOKEN"])
}

// A sealed setting opens only in its own organization, role and key: one
// copied into another role (by hand in the database, say) cannot be read.
// Redeeming the code of an agent hired from that role is then answered 400
// invalid_request saying an approver must set it again, not 403 as if the
// code were bad: the code stays good, and once an approver sets the
// setting again it redeems, with the new value.
func TestASecretSettingThatDoesNotOpenAsksForItAgain(t *testing.T) {
	b := newBoard(t)
	for _, role := range []string{"first", "second"} {
		got := b.Admin("val", "PUT", "/roles/"+role, `{"name": "R", "client": "runner", "actions": ["task.work"],
			"settings": {"DATABASE_URL": "postgres://app:`+role+`pw@db/app"}}`)
		require.Equal(t, http.StatusOK, got.Status, got.Raw)
	}
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "second", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	code := got.Body["connect"].(map[string]any)["code"].(string)
	b.Exec(`UPDATE agent_roles SET settings = jsonb_set(settings, '{DATABASE_URL}',
		(SELECT settings->'DATABASE_URL' FROM agent_roles WHERE id = 'first')) WHERE id = 'second'`)

	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
	require.Regexp(t, `^role second: setting DATABASE_URL cannot be read \(.*\); an approver must set it again$`, got.Body["message"])
	require.NotContains(t, got.Raw, "pw@db")
	require.Zero(t, b.Count(`SELECT count(*) FROM agent_tokens WHERE agent_id = 'second-web'`), "no token was handed out")

	got = b.Admin("val", "PUT", "/roles/second", `{"name": "R", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "postgres://app:newpw@db/app"}}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, "second-web", got.Body["agent_id"])
	require.Equal(t, "postgres://app:newpw@db/app", got.Body["settings"].(map[string]any)["DATABASE_URL"])
}
