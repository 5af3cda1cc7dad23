package people_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/people"
)

// A role's limit may be exactly 0 (a budget of nothing, e.g. no runs): it is
// saved and answered as 0. Only a negative limit is refused, with
// invalid_request naming the limit, and saves nothing.
func TestARoleLimitOfZeroIsSavedAndANegativeOneRefused(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	r, err := b.mod.Service().SaveRole(ctx, "val", people.RoleInput{ID: "idle", Name: "Idle", Client: "code",
		Actions: []string{"task.read"}, Limits: map[string]float64{"runs": 0}})
	require.NoError(t, err, "a limit of exactly 0 is allowed")
	require.Equal(t, map[string]float64{"runs": 0}, r.Limits)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_roles WHERE id = 'idle' AND limits = '{"runs": 0}'::jsonb`))

	_, err = b.mod.Service().SaveRole(ctx, "val", people.RoleInput{ID: "owing", Name: "Owing", Client: "code",
		Actions: []string{"task.read"}, Limits: map[string]float64{"runs": -0.5}})
	require.EqualError(t, err, "invalid_request: limit runs must be a number of at least 0")
	require.Zero(t, b.Count(`SELECT count(*) FROM agent_roles WHERE id = 'owing'`), "a refusal saves nothing")
}

// A value the database's checks refuse (mandate_days over 365) is answered
// invalid_request naming the role and the very constraint it broke, so the
// caller knows which field to fix.
func TestARoleOutOfRangeNamesTheConstraintItBroke(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	_, err := b.mod.Service().SaveRole(ctx, "val", people.RoleInput{ID: "long", Name: "Long", Client: "code",
		Actions: []string{"task.read"}, MandateDays: 400})
	require.EqualError(t, err, "invalid_request: role long is out of range: agent_roles_mandate_days_check")
	require.Zero(t, b.Count(`SELECT count(*) FROM agent_roles WHERE id = 'long'`))
}

// SEC-006: what SaveRole and ArchiveRole answer shows a secret setting only
// as set ([REDACTED]), never its sealed form, and the other settings as
// they are, the same as listing roles shows them.
func TestSavingAndArchivingARoleAnswerItsSecretsRedacted(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	shown := map[string]string{"DATABASE_URL": "[REDACTED]", "PACT_RUNNER_MAX_TURNS": "5"}
	r, err := b.mod.Service().SaveRole(ctx, "val", people.RoleInput{ID: "dbrunner", Name: "DB runner", Client: "runner",
		Actions: []string{"task.work"}, Settings: map[string]string{"DATABASE_URL": "postgres://app:hunter2@db/app", "PACT_RUNNER_MAX_TURNS": "5"}})
	require.NoError(t, err)
	require.Equal(t, shown, r.Settings, "the saved role's answer")

	r, err = b.mod.Service().ArchiveRole(ctx, "val", "dbrunner")
	require.NoError(t, err)
	require.NotNil(t, r.ArchivedAt)
	require.Equal(t, shown, r.Settings, "the archived role's answer")

	got := b.Admin("val", "POST", "/roles/dbrunner/archive", "")
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, map[string]any{"DATABASE_URL": "[REDACTED]", "PACT_RUNNER_MAX_TURNS": "5"}, got.Body["settings"])
}
