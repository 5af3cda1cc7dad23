package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/outbox"
)

// Listener reconnect backoff, and the shortest sleep of an idle worker (so
// a row another worker is claiming at this instant is looked at again
// shortly, never in a tight loop). How long the listener waits before it
// pings its connection is Options.ListenIdle.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 5 * time.Second
	minWait        = 20 * time.Millisecond
)

// work is delivery worker i: it drains every due row, then sleeps until a
// wake from the listener, the next retry or lease expiry, or Tick, and
// starts over. It returns nil when ctx ends and a database error otherwise
// (the kernel restarts it).
func (s *Service) work(ctx context.Context, i int) error {
	owner := fmt.Sprintf("%s/w%d", s.owner, i+1)
	for {
		wait, err := s.round(ctx, owner)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-s.wakers[i]:
		case <-t.C:
		}
		t.Stop()
	}
}

// round delivers every due row under owner's leases, then says how long
// to sleep before the next round (nextDue).
func (s *Service) round(ctx context.Context, owner string) (time.Duration, error) {
	if _, err := s.drain(ctx, owner); err != nil {
		return 0, err
	}
	return s.nextDue(ctx)
}

// nextDue is how long until a pending row becomes claimable (its retry time,
// or its lease's expiry when a worker holds it), between minWait and Tick.
func (s *Service) nextDue(ctx context.Context) (time.Duration, error) {
	wait, pending, err := outbox.NextDue(ctx, s.db)
	if err != nil || !pending {
		return s.opts.Tick, err
	}
	return min(max(wait, minWait), s.opts.Tick), nil
}

// listen holds one dedicated connection (db.DB.ListenConfig's, not taken
// from the pool) with LISTEN pact_outbox, and wakes every delivery worker on
// each notification and on every (re)connect, so rows committed while it
// was not listening are picked up. It reconnects with a doubling delay and
// returns nil when ctx ends.
func (s *Service) listen(ctx context.Context) error {
	delay := listenRetryMin
	for {
		listened, err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			delay = listenRetryMin
		}
		s.logger.Warn("outbox listener lost its connection; reconnecting", "error", err, "in", delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(delay*2, listenRetryMax)
	}
}

func (s *Service) listenOnce(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.db.ListenConfig())
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+outbox.Channel); err != nil {
		return false, err
	}
	s.wakeAll()
	for {
		wctx, cancel := context.WithTimeout(ctx, s.opts.ListenIdle)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case n != nil:
			s.wakeAll()
		case ctx.Err() != nil:
			return true, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			// Idle: check the connection, since a dead peer would leave us
			// waiting for ever.
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				return true, err
			}
		case err != nil:
			return true, err
		}
	}
}
