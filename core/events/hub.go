package events

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5"
)

// Hub is a process's one listener: a dedicated PostgreSQL connection
// LISTENing on Channel, fanning notifications out to in-process
// subscribers. It is safe for concurrent use; Subscribe works before and
// while Run runs (a subscriber made before the listener connects is woken
// when it does).
type Hub struct {
	conn   *pgx.ConnConfig
	logger hclog.Logger

	mu   sync.RWMutex
	subs map[*Subscription]struct{}

	running atomic.Bool

	// Reconnect backoff (doubling from retryMin to retryMax) and how long
	// the listener may sit idle before it checks its connection. Tests
	// shorten them.
	retryMin, retryMax, idlePing time.Duration
}

// NewHub returns a hub that will listen through a connection of its own
// made with conn (not one of the pool's, so a busy pool never starves it):
// db.DB.ListenConfig, which leads to PostgreSQL itself when the pool goes
// through a pooler in transaction mode (docs/operations.md, "PostgreSQL
// behind a pooler"). A nil logger discards logs.
func NewHub(conn *pgx.ConnConfig, logger hclog.Logger) *Hub {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Hub{
		conn:     conn,
		logger:   logger,
		subs:     map[*Subscription]struct{}{},
		retryMin: 100 * time.Millisecond,
		retryMax: 2 * time.Second,
		idlePing: 30 * time.Second,
	}
}

// Subscription is one waiter's registration. C delivers a wake, coalesced:
// however many matching events arrive before the waiter reads C, it sees
// one.
type Subscription struct {
	hub   *Hub
	match func(Event) bool
	c     chan struct{}
}

// Subscribe registers a waiter for the events match accepts (nil accepts
// all). match runs on the hub's goroutine for every event while the hub's
// lock is held: it must be quick and must not call the hub. The caller
// must Close the subscription; until then it is woken on every matching
// event and on every (re)connect of the listener.
//
// A nil Hub (a kernel built without one, as in module tests) hands out
// subscriptions that are never woken: waits then end by their deadline.
func (h *Hub) Subscribe(match func(Event) bool) *Subscription {
	s := &Subscription{hub: h, match: match, c: make(chan struct{}, 1)}
	if h == nil {
		return s
	}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// C is the wake signal. After a wake, re-check the database.
func (s *Subscription) C() <-chan struct{} { return s.c }

// Close removes the subscription; it holds no goroutine or connection
// afterwards. It is safe to call more than once.
func (s *Subscription) Close() {
	if s.hub == nil {
		return
	}
	s.hub.mu.Lock()
	delete(s.hub.subs, s)
	s.hub.mu.Unlock()
}

func (s *Subscription) wake() {
	select {
	case s.c <- struct{}{}:
	default: // a wake is already pending
	}
}

// Len returns the number of open subscriptions.
func (h *Hub) Len() int {
	if h == nil {
		return 0
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs)
}

// Run listens until ctx ends, then returns nil. When the connection fails
// it reconnects after a delay that doubles from 100 ms to 2 s, and every
// successful LISTEN wakes all subscribers so they re-check what they may
// have missed. One Run at a time: a second concurrent call is an error (a
// supervisor may call it again after it returned, or after a panic).
func (h *Hub) Run(ctx context.Context) error {
	if !h.running.CompareAndSwap(false, true) {
		return errors.New("events: Hub.Run is already running")
	}
	defer h.running.Store(false)
	delay := h.retryMin
	for {
		listened, err := h.listen(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			delay = h.retryMin
		}
		h.logger.Warn("event listener lost its connection; reconnecting", "error", err, "in", delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(delay*2, h.retryMax)
	}
}

// listen runs one connection's life: connect, LISTEN, wake everyone, then
// dispatch notifications until the connection fails. listened reports
// whether LISTEN succeeded.
func (h *Hub) listen(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, h.conn)
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return false, err
	}
	h.logger.Debug("listening for events", "channel", Channel, "backend_pid", conn.PgConn().PID())
	h.wakeAll() // resync: whatever was committed while we were not listening
	for {
		wctx, cancel := context.WithTimeout(ctx, h.idlePing)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case n != nil:
			h.dispatch(n.Payload)
		case ctx.Err() != nil:
			return true, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			// Idle: make sure the connection is still alive, since a dead
			// peer would otherwise leave us waiting forever.
			if err := h.ping(ctx, conn); err != nil {
				return true, err
			}
		case err != nil:
			return true, err
		}
	}
}

func (h *Hub) ping(ctx context.Context, conn *pgx.Conn) error {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := conn.Exec(pctx, "SELECT 1")
	return err
}

// dispatch wakes the subscribers that want the event. A payload it cannot
// read wakes everyone: a spurious wake costs a re-check, a lost one costs a
// waiter its work.
func (h *Hub) dispatch(payload string) {
	var ev Event
	if err := json.Unmarshal([]byte(payload), &ev); err != nil {
		h.logger.Warn("unreadable event; waking every waiter", "payload", payload, "error", err)
		h.wakeAll()
		return
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.subs {
		if s.match == nil || s.match(ev) {
			s.wake()
		}
	}
}

func (h *Hub) wakeAll() {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.subs {
		s.wake()
	}
}
