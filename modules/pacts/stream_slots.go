package pacts

import (
	"sync"

	"github.com/pactboard/pact/sdk/errs"
)

// MaxStreamsPerAgent is how many pact streams one agent may hold open at
// once in one board process, as kernel.MaxWaitsPerAgent caps its waiting
// calls: a client needs one, a few more cover one that reconnects before
// the server saw the old connection go. Past that each stream only costs
// the board a connection, a subscription and a query per wake, so a
// runaway agent is refused rather than served (docs/security.md, issue 29
// finding 4).
const MaxStreamsPerAgent = 4

// streamSlots counts the streams each agent holds in this process, and
// how often its streams read the feed (what a wake costs: finding 4).
type streamSlots struct {
	mu    sync.Mutex
	held  map[string]int
	reads map[string]int
}

// read counts one read of the feed by one of agent's streams.
func (s *streamSlots) read(agent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reads == nil {
		s.reads = map[string]int{}
	}
	s.reads[agent]++
}

// readsOf is how often agent's streams have read the feed.
func (s *streamSlots) readsOf(agent string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[agent]
}

// take takes one of agent's slots and returns the function that gives it
// back (once, however often it is called); it refuses rate_limited when
// agent already holds MaxStreamsPerAgent.
func (s *streamSlots) take(agent string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[agent] >= MaxStreamsPerAgent {
		return nil, errs.E(errs.RateLimited, "agent %s already holds %d pact streams on this board, the most one agent may "+
			"hold at once; close one (one stream per agent carries every pact it sits in) before opening another",
			agent, MaxStreamsPerAgent)
	}
	if s.held == nil {
		s.held = map[string]int{}
	}
	s.held[agent]++
	var once sync.Once
	return func() { once.Do(func() { s.give(agent) }) }, nil
}

func (s *streamSlots) give(agent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[agent]--; s.held[agent] <= 0 {
		delete(s.held, agent)
	}
}
