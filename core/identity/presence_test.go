package identity_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
)

// failures collects what Options.SeenFailed hears, from the timer's
// goroutine.
type failures struct {
	mu   sync.Mutex
	errs []error
}

func (r *failures) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

func (r *failures) all() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

// presenceFixture is withPeople with agents code-web and code-api (active)
// and code-old (paused), and a service reporting failed stamps to heard.
func presenceFixture(t *testing.T) (*fixture, *failures) {
	t.Helper()
	f := withPeople(t)
	f.agent(t, "code-web", "web")
	f.agent(t, "code-api", "web")
	f.agent(t, "code-old", "web")
	f.exec(t, `UPDATE agents SET status = 'paused' WHERE id = 'code-old'`)
	heard := &failures{}
	f.svc = identity.NewService(f.d, f.log, &identity.Options{Now: func() time.Time { return f.now }, SeenFailed: heard.add})
	return f, heard
}

func (f *fixture) stamped(t *testing.T) []string {
	t.Helper()
	var ids []string
	require.NoError(t, f.d.NewRaw(`SELECT agent_id FROM agent_presence WHERE last_seen IS NOT NULL ORDER BY agent_id`).
		Scan(context.Background(), &ids))
	return ids
}

// FlushSeen writes every pending stamp at once, of active agents only, and
// with nothing pending does nothing.
func TestFlushSeenWritesThePendingStampsOfActiveAgents(t *testing.T) {
	ctx := context.Background()
	f, heard := presenceFixture(t)
	require.NoError(t, f.svc.FlushSeen(ctx), "nothing pending, no timer")
	require.Empty(t, f.stamped(t))

	f.svc.Seen("code-web")
	f.svc.Seen("code-web")
	f.svc.Seen("code-api")
	f.svc.Seen("code-old")
	require.Empty(t, f.stamped(t), "a stamp waits for its batch")
	require.NoError(t, f.svc.FlushSeen(ctx))
	require.Equal(t, []string{"code-api", "code-web"}, f.stamped(t))
	require.NoError(t, f.svc.FlushSeen(ctx), "flushed, nothing is pending")

	// The flush stopped the batch's timer: nothing more is written when it
	// would have fired, and nothing fails.
	f.exec(t, `UPDATE agent_presence SET last_seen = NULL`)
	time.Sleep(identity.SeenEvery + identity.SeenEvery/2)
	require.Empty(t, f.stamped(t))
	require.Empty(t, heard.all())
}

// Without a flush, a stamp is written by the batch's timer within
// SeenEvery, and a timer that succeeds reports nothing.
func TestASeenStampIsWrittenWithinSeenEvery(t *testing.T) {
	f, heard := presenceFixture(t)
	f.svc.Seen("code-web")
	require.Eventually(t, func() bool { return len(f.stamped(t)) == 1 }, 3*identity.SeenEvery, 20*time.Millisecond)
	require.Equal(t, []string{"code-web"}, f.stamped(t))
	require.Empty(t, heard.all())
}

// A batch that cannot be written is reported to SeenFailed and kept: the
// timer tries it again, and FlushSeen returns the failure and keeps it too.
func TestAFailedStampIsReportedAndTriedAgain(t *testing.T) {
	ctx := context.Background()
	f, heard := presenceFixture(t)
	// A constraint no stamp satisfies makes every write fail, for a while.
	f.exec(t, `ALTER TABLE agent_presence ADD CONSTRAINT no_stamps CHECK (last_seen IS NULL)`)

	f.svc.Seen("code-web")
	require.Error(t, f.svc.FlushSeen(ctx))
	require.Empty(t, heard.all(), "FlushSeen returns its failure rather than reporting it")
	require.Eventually(t, func() bool { return len(heard.all()) > 0 }, 3*identity.SeenEvery, 20*time.Millisecond,
		"the kept stamp's timer fails and says so")
	require.ErrorContains(t, heard.all()[0], "stamp last_seen of 1 agents")

	f.exec(t, `ALTER TABLE agent_presence DROP CONSTRAINT no_stamps`)
	require.Eventually(t, func() bool { return len(f.stamped(t)) == 1 }, 3*identity.SeenEvery, 20*time.Millisecond,
		"the stamp is written once the database takes it")
	require.NoError(t, f.svc.FlushSeen(ctx))
}
