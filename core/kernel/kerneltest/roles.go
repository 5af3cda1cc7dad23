package kerneltest

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
)

// Member is one person of the Office cast.
type Member struct {
	ID   string
	Role identity.Role
}

// Staff is the Office cast by rank, lowest first: what a test that calls
// every operation as each role walks.
func Staff() []Member {
	return []Member{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}}
}

// RequireBelowRole requires got to be the Admin API gate's refusal of m
// from an operation that needs min: 403 with the words of
// docs/specs/behavior.md §10.1.
func RequireBelowRole(t testing.TB, got Reply, m Member, min identity.Role) {
	t.Helper()
	require.Equal(t, http.StatusForbidden, got.Status, got.Raw)
	require.Equal(t, map[string]any{"error": "forbidden",
		"message": fmt.Sprintf("%s is %s; this needs %s", m.ID, m.Role, min)}, got.Body)
}
