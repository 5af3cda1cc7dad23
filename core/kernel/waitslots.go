package kernel

import (
	"sync"

	"github.com/pactboard/pact/sdk/errs"
)

// MaxWaitsPerAgent is how many calls with a Wait phase (pact_wait,
// pact_events) one agent may have waiting at once in one board process.
// An agent needs one or two (its messages, its events); a few more cover
// a client that reconnects before the server saw the old call go. Past
// that, each held call only costs the board a connection, a subscription
// and a goroutine, so a runaway agent is refused rather than served
// (docs/security.md, "7. Caps").
const MaxWaitsPerAgent = 4

// waitSlots counts the waits each agent holds.
type waitSlots struct {
	mu    sync.Mutex
	held  map[string]int
	total int // the sum of held, for the held-waits gauge
}

// take takes one of agent's slots, and returns the function that gives it
// back (once, however often it is called); it refuses with rate_limited
// when agent already holds MaxWaitsPerAgent.
func (s *waitSlots) take(agent, tool string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[agent] >= MaxWaitsPerAgent {
		return nil, errs.E(errs.RateLimited, "agent %s already has %d calls waiting (pact_wait, pact_events), "+
			"the most one agent may hold at once; let one of them end, or cancel it, before calling %s again",
			agent, MaxWaitsPerAgent, tool)
	}
	if s.held == nil {
		s.held = map[string]int{}
	}
	s.held[agent]++
	s.total++
	var once sync.Once
	return func() { once.Do(func() { s.give(agent) }) }, nil
}

func (s *waitSlots) give(agent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if s.held[agent]--; s.held[agent] <= 0 {
		delete(s.held, agent)
	}
}

// count is how many waits are held, by every agent.
func (s *waitSlots) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}
