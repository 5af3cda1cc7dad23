package main

import (
	"context"
	"slices"
	"strconv"
	"time"
)

// eventsOut is what pact_events answers (docs/events.md).
type eventsOut struct {
	Tasks     []boardTask    `json:"tasks"`
	Offered   []string       `json:"offered"`
	Messages  []boardMessage `json:"messages"`
	NextSince int64          `json:"next_since"`
	TimedOut  bool           `json:"timed_out"`
	Reconnect bool           `json:"reconnect"`
}

// eventsWait is how long one pact_events call waits at most (its own
// bound), and callBound how long pact-channel lets it take in all.
const (
	eventsWait = 50
	callBound  = 90 * time.Second
	// quietMax bounds the pause after a pact_events that answered at once
	// with nothing new: unread messages keep it ready until the session
	// reads them (pact_message or pact_wait), and calling again at once
	// would be a busy loop.
	quietMax = 30 * time.Second
)

// watchTasks holds pact_events, passing next_since back as since, and
// sends one notification per task delegated or offered to the agent and
// per message to it on a task; each is sent once (a task once per change,
// a message once), those waiting at start included.
func (c *channel) watchTasks(ctx context.Context) {
	var since, lastMessage int64
	seen := newSeen(4096)
	var pause, retry time.Duration
	for ctx.Err() == nil {
		mandate, err := c.mandate(ctx)
		if err != nil {
			c.logger.Error("pact-channel: no mandate to watch tasks with; trying again in a minute", "error", err)
			sleep(ctx, stoppedWait)
			continue
		}
		var out eventsOut
		callCtx, cancel := context.WithTimeout(ctx, callBound)
		err = c.board.call(callCtx, "pact_events", map[string]any{"mandate_id": mandate, "since": since, "seconds": eventsWait}, &out)
		cancel()
		if err != nil {
			code := codeOf(err)
			switch {
			case ctx.Err() != nil:
				return
			case isMandate(code):
				c.logger.Warn("pact-channel: mandate refused; reading pact_whoami again", "mandate", mandate, "error", err)
				c.forget(mandate)
				sleep(ctx, retryMin)
			case code != "":
				c.logger.Error("pact-channel: the board refused pact_events; trying again in a minute", "error", err)
				sleep(ctx, stoppedWait)
			default:
				retry = min(max(2*retry, retryMin), retryMax)
				c.logger.Warn("pact-channel: pact_events failed", "error", err, "retry_in", retry)
				sleep(ctx, retry)
			}
			continue
		}
		retry = 0
		fresh := 0
		for _, t := range out.Tasks {
			offered := slices.Contains(out.Offered, t.ID)
			if (t.DelegateTo == nil || *t.DelegateTo != c.cfg.Agent) && !offered {
				continue
			}
			if !seen.add(t.ID + "/" + strconv.FormatInt(t.Seq, 10)) {
				continue
			}
			if err := c.conn.notify(ctx, channelMethod, taskParams(t, mandate, offered)); err != nil {
				return
			}
			fresh++
		}
		for _, m := range out.Messages {
			if m.ID <= lastMessage {
				continue
			}
			if err := c.conn.notify(ctx, channelMethod, messageParams(m, mandate)); err != nil {
				return
			}
			lastMessage = m.ID
			fresh++
		}
		since = out.NextSince
		if fresh > 0 || out.TimedOut || out.Reconnect {
			pause = 0
			continue
		}
		pause = min(max(2*pause, time.Second), quietMax)
		sleep(ctx, pause)
	}
}

// seen is a bounded set of keys, the oldest forgotten first.
type seen struct {
	keys  map[string]bool
	order []string
	limit int
}

func newSeen(limit int) *seen { return &seen{keys: map[string]bool{}, limit: limit} }

// add reports whether key is new, and remembers it.
func (s *seen) add(key string) bool {
	if s.keys[key] {
		return false
	}
	if len(s.order) == s.limit {
		delete(s.keys, s.order[0])
		s.order = s.order[1:]
	}
	s.keys[key] = true
	s.order = append(s.order, key)
	return true
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
