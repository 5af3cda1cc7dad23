package notes_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/modules/notes"
)

// The notes module gives pact_whoami each project's live notes, pinned
// first then by key, for all projects in one call; a project without
// notes has an empty list.
func TestWhoamiContextSection(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	for _, w := range []notes.Write{
		{Project: "web", Key: "zeta", By: "human:ana", Title: ptr("Zeta"), Body: ptr("z")},
		{Project: "web", Key: "alpha", By: "human:ana", Title: ptr("Alpha"), Body: ptr("a")},
		{Project: "web", Key: "pinned", By: "human:ana", Title: ptr("Pinned"), Body: ptr("p")},
		{Project: "web", Key: "gone", By: "human:ana", Title: ptr("Gone"), Body: ptr("g")},
		{Project: "web", Key: "gone", By: "human:ana", Archive: true},
	} {
		_, err := notes.WriteNote(ctx, f.DB, w)
		require.NoError(t, err)
	}
	require.NoError(t, f.notes.Service().SetPinned(ctx, "ana", "web", "pinned", true))
	_, projects := f.Kernel.Whoami().Names()
	require.Equal(t, []string{"context"}, projects)
	tx, err := f.DB.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	err = func() error {
		_, got, err := f.Kernel.Whoami().Build(ctx, tx, kernel.WhoamiCaller{AgentID: "code-web", OrgID: "default"},
			[]string{"web", "empty"})
		require.NoError(t, err)
		web, err := json.Marshal(got["web"]["context"])
		require.NoError(t, err)
		require.JSONEq(t, `[{"key": "pinned", "title": "Pinned"}, {"key": "alpha", "title": "Alpha"}, {"key": "zeta", "title": "Zeta"}]`,
			string(web))
		empty, err := json.Marshal(got["empty"]["context"])
		require.NoError(t, err)
		require.Equal(t, "[]", string(empty), "an empty list, not null")
		return nil
	}()
	require.NoError(t, err)
}

func ptr[T any](v T) *T { return &v }
