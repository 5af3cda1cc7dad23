package board

import (
	"context"
	"time"

	"github.com/pactboard/pact/core/a2a"

	"github.com/uptrace/bun"
)

// LockAgentSQL is the statement that locks a claiming agent's row, for the
// lock test.
const LockAgentSQL = lockAgentSQL

// LockTask locks task id as the task services do before changing it.
func (m *Module) LockTask(ctx context.Context, tx bun.IDB, id string) error {
	_, err := m.svc.st.getTask(ctx, tx, id, true)
	return err
}

// NotClaimable is why a claim that found task id taken or closed was
// refused, as the task is now.
func (m *Module) NotClaimable(ctx context.Context, tx bun.IDB, id string) error {
	return m.svc.notClaimable(ctx, tx, id)
}

// RemoteAuth is the Authorization header remote agent agent's card was
// named with, unsealed as the driver unseals it.
func (m *Module) RemoteAuth(ctx context.Context, agent string) (string, error) {
	r, err := m.svc.st.remote(ctx, m.db, agent)
	if err != nil {
		return "", err
	}
	return openRemoteAuth(m.remote.box, r)
}

// DriveRemotes sets how this board drives remote A2A agents, for tests
// whose remote listens on loopback: private addresses allowed, and the
// follower's lease and the poll period of a remote that does not stream.
func (m *Module) DriveRemotes(lease, poll time.Duration) {
	m.remote.http = a2a.HTTPClient(true)
	m.remote.lease, m.remote.poll = lease, poll
}

// NextPushIn is how long until the next due push config may be tried, as
// the push worker reads it before it sleeps (nil when none is due).
func (m *Module) NextPushIn(ctx context.Context) (*time.Duration, error) {
	return m.push.st.nextPushIn(ctx, m.db)
}
