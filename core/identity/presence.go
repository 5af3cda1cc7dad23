package identity

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pactboard/pact/core/db"
)

// SeenEvery is how long a call's last_seen stamp may wait before it is
// written: the stamps of every call in that time are written together.
const SeenEvery = time.Second

// seenSQL stamps last_seen on agents $1 (sorted), writing their presence
// rows in that order so that two boards flushing the same agents never
// deadlock. It touches only active agents, as a call's stamp did.
const seenSQL = `INSERT INTO agent_presence AS p (agent_id, last_seen)
	SELECT id, now() FROM agents WHERE id = ANY($1::text[]) AND status = 'active' ORDER BY id
	ON CONFLICT (agent_id) DO UPDATE SET last_seen = excluded.last_seen`

// presence writes agents' last_seen apart from their calls.
//
// Why not in the call's transaction: every call of an agent then updated
// the agent's row and held that row lock until it committed, so an agent's
// calls took turns on it, and the row, which every log entry naming the
// agent also locks (KEY SHARE, through its foreign key), was updated by
// several transactions at once. Under concurrent claims by one agent,
// PostgreSQL 15 then refused a few of them with "new multixact has more
// than one updating member" (docs/reliability.md, the claims finding). A
// stamp is not part of what the call did, so it needs no atomicity with
// it: it is written after the call commits, at most SeenEvery later, in a
// statement of its own.
type presence struct {
	db      *db.DB
	every   time.Duration
	onError func(error)

	mu      sync.Mutex
	pending map[string]struct{}
	timer   *time.Timer
}

func newPresence(d *db.DB, every time.Duration, onError func(error)) *presence {
	return &presence{db: d, every: every, onError: onError, pending: map[string]struct{}{}}
}

// seen notes that agent made a call that committed; a flush is scheduled
// unless one already is.
func (p *presence) seen(agent string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending[agent] = struct{}{}
	if p.timer == nil {
		p.timer = time.AfterFunc(p.every, p.flushLater)
	}
}

// flushLater is the timer's flush; a failure (the database is away) keeps
// the stamps for the next one.
func (p *presence) flushLater() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.flush(ctx); err != nil && p.onError != nil {
		p.onError(err)
	}
}

// flush writes every pending stamp now.
func (p *presence) flush(ctx context.Context) error {
	p.mu.Lock()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	agents := make([]string, 0, len(p.pending))
	for a := range p.pending {
		agents = append(agents, a)
	}
	clear(p.pending)
	p.mu.Unlock()
	if len(agents) == 0 {
		return nil
	}
	slices.Sort(agents)
	if _, err := p.db.Write(ctx, p.db, seenSQL, agents); err != nil {
		for _, a := range agents {
			p.seen(a)
		}
		return fmt.Errorf("stamp last_seen of %d agents: %w", len(agents), err)
	}
	return nil
}

// Seen records that agent made a call that committed: its last_seen is
// written within SeenEvery, apart from the call (see presence).
func (s *Service) Seen(agent string) { s.presence.seen(agent) }

// FlushSeen writes every pending last_seen stamp now: before the board
// stops, and in tests that read last_seen right after a call.
func (s *Service) FlushSeen(ctx context.Context) error { return s.presence.flush(ctx) }
