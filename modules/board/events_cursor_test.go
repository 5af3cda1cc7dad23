package board_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A change that commits after a later-numbered one is not skipped: the
// cursor of pact_events and pact_list never passes a change whose
// transaction is still open (migration 022, EVENTS-003). Task A is changed
// in a transaction that stays open while task B's change commits; a reader
// then must not move its cursor past A, and once A commits the next call
// with that cursor returns it.
func TestTheCursorWaitsForAnOlderOpenTransaction(t *testing.T) {
	for _, tool := range []string{"pact_events", "pact_list"} {
		t.Run(tool, func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			a := w.post("code-web", "web", "A", nil)
			b := w.post("code-web", "web", "B", nil)
			args := func(since any) map[string]any {
				m := map[string]any{"mandate_id": w.Root("runner-web"), "since": since}
				if tool == "pact_events" {
					m["seconds"] = 0
				}
				return m
			}
			since := w.OK("runner-web", tool, args(0))["next_since"]

			older, err := w.DB.BeginTx(ctx, nil)
			require.NoError(t, err)
			defer func() { _ = older.Rollback() }()
			_, err = older.ExecContext(ctx, `UPDATE tasks SET title = 'A, changed first' WHERE id = ?`, a)
			require.NoError(t, err)
			w.Exec(`UPDATE tasks SET title = 'B, committed first' WHERE id = ?`, b)

			got := w.OK("runner-web", tool, args(since))
			for _, task := range got["tasks"].([]any) {
				require.NotEqual(t, b, task.(map[string]any)["id"],
					"B is held back while an older transaction is open: handing it out would move the cursor past A")
			}
			since = got["next_since"]
			require.NoError(t, older.Commit())

			got = w.OK("runner-web", tool, args(since))
			var ids []string
			for _, task := range got["tasks"].([]any) {
				ids = append(ids, task.(map[string]any)["id"].(string))
			}
			require.ElementsMatch(t, []string{a, b}, ids, "with the cursor from before, both changes come: none is skipped")
		})
	}
}
