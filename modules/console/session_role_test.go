package console_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
)

// The console shows a write control only when can(role, operation) allows
// it, role being what /console/session names (CONSOLE-006, CONSOLE-014):
// for each role, the session names the signed-in person's own role and
// nothing wider or narrower. The browser journeys check the controls
// themselves; this checks, without a browser, the role they are drawn from.
func TestTheSessionNamesThePersonsOwnRole(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	b.Person("ann", "abe", identity.Approver)
	b.Person("ann", "val", identity.Viewer)
	for person, role := range map[string]string{"ann": "owner", "abe": "approver", "val": "viewer"} {
		br := newBrowser(t)
		got := br.get(localLink(t, b, person, time.Now()))
		require.Equal(t, http.StatusFound, got.Status, got.Body)
		sess := br.get(b.URL + "/console/session")
		require.Equal(t, http.StatusOK, sess.Status, sess.Body)
		var s struct {
			Person map[string]string `json:"person"`
		}
		require.NoError(t, json.Unmarshal([]byte(sess.Body), &s))
		require.Equal(t, person, s.Person["id"])
		require.Equal(t, role, s.Person["role"], "the role %s's console draws its controls from", person)
	}
}
