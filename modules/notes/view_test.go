package notes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
)

// A note read alone shows when it was archived; in a list (no body) it
// does not. pact_note only ever shows live notes, so this is view's own
// contract, proved here without the tool.
func TestAnArchivedNoteReadAloneSaysWhenItWasArchived(t *testing.T) {
	at, body := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC), "gone"
	alone := view(Note{Key: "old", Body: &body, ArchivedAt: &at})
	require.NotNil(t, alone.ArchivedAt)
	require.Equal(t, canon.ISO(at), *alone.ArchivedAt)
	require.Nil(t, view(Note{Key: "old", ArchivedAt: &at}).ArchivedAt, "a list leaves archived_at out")
}
