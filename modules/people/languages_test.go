package people_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// The organization's language is an org setting (PUT /org, shown by GET
// /org); a person chooses their own with PATCH /me, shown by /me and
// /humans, and null follows the organization again. A language the board
// does not speak is refused, naming the ones it does.
func TestLanguagesOfTheOrganizationAndItsPeople(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("vic", "GET", "/org", "")
	require.Equal(t, "en", got.Body["language"], "English unless the organization chose another")

	got = b.Admin("ana", "PUT", "/org", `{"language": "th"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "th", got.Body["language"])
	require.Equal(t, "th", b.Admin("vic", "GET", "/org", "").Body["language"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.org.update' AND outcome = 'ok'`))
	got = b.Admin("vic", "GET", "/me", "")
	require.Nil(t, got.Body["language"])
	require.Equal(t, "th", got.Body["reads_in"], "a person without a choice reads the organization's language")

	got = b.Admin("vic", "PATCH", "/me", `{"language": "en"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "en", got.Body["language"])
	require.Equal(t, "en", got.Body["reads_in"], "the person's choice overrides the organization's")
	require.Equal(t, "en", b.Admin("vic", "GET", "/me", "").Body["reads_in"])
	humans := b.Admin("ana", "GET", "/humans", "").Body["humans"].([]any)
	byID := map[string]any{}
	for _, h := range humans {
		byID[h.(map[string]any)["id"].(string)] = h.(map[string]any)["language"]
	}
	require.Equal(t, "en", byID["vic"])
	require.Nil(t, byID["ana"])
	require.Equal(t, "th", b.Admin("vic", "GET", "/org", "").Body["language"], "a person's choice is theirs alone")

	got = b.Admin("vic", "PATCH", "/me", `{"language": null}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Nil(t, got.Body["language"])
	require.Equal(t, "th", got.Body["reads_in"], "null follows the organization again")

	for _, tc := range []struct{ method, path, body string }{
		{"PUT", "/org", `{"language": "fr"}`},
		{"PUT", "/org", `{"language": ""}`},
		{"PATCH", "/me", `{"language": "fr"}`},
		{"PATCH", "/me", `{"language": "th-TH"}`},
	} {
		got = b.Admin("ana", tc.method, tc.path, tc.body)
		require.Equal(t, http.StatusBadRequest, got.Status, tc.body)
		require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
		require.Contains(t, got.Raw, "language must be one of en, th", got.Raw)
	}
	got = b.Admin("vic", "PATCH", "/me", `{}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Equal(t, "th", b.Admin("vic", "GET", "/org", "").Body["language"], "a refusal changes nothing")
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM humans WHERE language IS NOT NULL`))
}
