package pacts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// A board that drains (SIGTERM) ends its open streams at once rather than
// letting the shutdown deadline cut them: the client reconnects, to
// another board, with Last-Event-ID (REL-001).
func TestStreamEndsWhenTheBoardDrains(t *testing.T) {
	f := streamWorld(t)
	f.pact(t)
	_, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "stream"})
	require.NoError(t, err)
	s := f.stream(t, "bram", "", "")
	f.Kernel.Drain()
	select {
	case _, open := <-s.events:
		require.False(t, open, "no event was due; the stream ends")
	case <-time.After(10 * time.Second):
		t.Fatal("the stream stayed open after the board drained")
	}
}
