package people_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTakenNamesAnswerAlikeInEveryOrganization: ids of people, projects and
// agents are board-wide names (docs/security.md, finding 9, says why). A
// name taken in another organization gets, word for word but for the id,
// the answer a name taken in the caller's own gets: id_taken, naming no
// organization, no owner, no kind of state.
func TestTakenNamesAnswerAlikeInEveryOrganization(t *testing.T) {
	b := newBoard(t)
	require.Equal(t, 201, b.Admin("ana", "POST", "/agents", `{"id": "own-bot", "projects": ["web"]}`).Status)
	require.Equal(t, 201, b.Admin("bo", "POST", "/agents", `{"id": "bo-bot", "projects": ["rocket"]}`).Status)
	for _, tc := range []struct {
		path, body, own, other string
	}{
		{"/humans", `{"id": "%", "name": "X", "email": "x-%@example.com"}`, "val", "bo"},
		{"/projects", `{"id": "%", "name": "X"}`, "web", "rocket"},
		{"/agents", `{"id": "%", "projects": ["web"]}`, "own-bot", "bo-bot"},
		{"/agents/hire", `{"role": "code", "project": "web", "id": "%"}`, "own-bot", "bo-bot"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			own := b.Admin("ana", "POST", tc.path, strings.ReplaceAll(tc.body, "%", tc.own))
			other := b.Admin("ana", "POST", tc.path, strings.ReplaceAll(tc.body, "%", tc.other))
			require.Equal(t, 409, own.Status, own.Raw)
			require.Equal(t, "id_taken", own.Body["error"])
			require.Equal(t, strings.ReplaceAll(own.Raw, tc.own, "?"), strings.ReplaceAll(other.Raw, tc.other, "?"))
			require.NotContains(t, other.Raw, "acme")
		})
	}
}
