package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A runner takes what is delegated to it first, then what the board offered
// it (it woke this runner alone for those), then the rest in a random order.
func TestSpreadTakesDelegatedThenOfferedTasksFirst(t *testing.T) {
	me, other := "runner-web", "runner-api"
	tasks := []taskView{{ID: "open-1"}, {ID: "offered"}, {ID: "open-2"}, {ID: "mine", DelegateTo: &me},
		{ID: "theirs", DelegateTo: &other}, {ID: "open-3"}}
	for range 20 {
		got := spread(tasks, me, []string{"offered"})
		require.Len(t, got, len(tasks))
		require.Equal(t, []string{"mine", "offered"}, []string{got[0].ID, got[1].ID})
	}
}
