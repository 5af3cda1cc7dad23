package board

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAHeartbeatIsDueHalfABeatAfterTheLast: while a remote agent works,
// the board heartbeats its task half a beat after the last heartbeat
// (the beat is a third of the claim's lease, docs/a2a.md, "Remote
// agents"), so one lands within every beat; not a nanosecond before, and
// at once when none was sent yet.
func TestAHeartbeatIsDueHalfABeatAfterTheLast(t *testing.T) {
	d := newRemoteDriver(nil, nil, 6*time.Minute) // a beat of 2 minutes
	last := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	r := &remoteRun{m: &Module{remote: d}, beaten: last}
	require.False(t, r.heartbeatDue(last.Add(time.Minute-time.Nanosecond)), "not before half a beat")
	require.True(t, r.heartbeatDue(last.Add(time.Minute)), "at half a beat exactly")
	require.True(t, r.heartbeatDue(last.Add(2*time.Minute)))
	require.True(t, (&remoteRun{m: &Module{remote: d}}).heartbeatDue(last), "none sent yet: due at once")
}
