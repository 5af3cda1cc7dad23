package pacts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// The pact stream (docs/pacts.md, "Delivery without polling"): GET
// /pacts/stream with the agent's own MCP token as the bearer, answered as
// server-sent events, one per pact_feed row that others wrote in the pacts
// the agent sits in. An event's id is its number in the feed of the agent's
// organization (migration 029), so Last-Event-ID resumes exactly where a
// dropped connection stopped, and other organizations' writes never show.

const (
	// streamBatch is the most rows one read of the feed writes out.
	streamBatch = 200
	// maxStreamFilter is the most pact ids ?pacts= may name.
	maxStreamFilter = 50
)

// serveStream answers GET /pacts/stream.
func (m *Module) serveStream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	agent, refusal := m.streamAgent(ctx, r.Header.Get("Authorization"))
	if refusal != nil {
		refuseStream(w, refusal)
		return
	}
	filter, cursor, refusal := streamArgs(r)
	if refusal != nil {
		kernel.WriteError(w, http.StatusBadRequest, refusal)
		return
	}
	var heard hearing
	err := m.db.RunInTx(ctx, readSnapshot(), func(ctx context.Context, tx bun.Tx) (err error) {
		heard, err = m.hears(ctx, tx, agent)
		return err
	})
	if e, ok := errs.As(err); ok {
		refuseStream(w, e)
		return
	} else if err != nil {
		m.streamFailed(w, agent, err)
		return
	}
	release, err := m.dlv.streams.take(agent)
	if err != nil {
		e, _ := errs.As(err)
		refuseStream(w, e)
		return
	}
	defer release()
	st := newStreamState(agent, heard)
	// Subscribe before the first read: a commit after this wakes us even if
	// it lands before we wait (core/events, "The waiter's contract").
	sub := m.dlv.events.Subscribe(st.wakes)
	defer sub.Close()
	if cursor < 0 {
		head, err := feedHead(ctx, m.db, st.org)
		if err != nil {
			m.streamFailed(w, agent, err)
			return
		}
		cursor = head
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives any write timeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise hold the events back
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprintf(w, ": pact stream of %s from %d\nretry: 3000\n\n", agent, cursor); err != nil || rc.Flush() != nil {
		return
	}
	// The heartbeat keeps proxies from closing an idle stream; each one
	// also checks the token and the agent again, so a revoked token or a
	// paused agent loses its stream within one (Options.StreamHeartbeat).
	beat := time.NewTicker(m.dlv.opts.StreamHeartbeat)
	defer beat.Stop()
	recheck := time.NewTicker(m.dlv.opts.StreamRecheck)
	defer recheck.Stop()
	for {
		evs, grew, stopped, err := m.streamBatch(ctx, st, filter, cursor)
		if err != nil {
			if ctx.Err() == nil {
				m.dlv.logger.Error("pact stream: read the feed", "agent", agent, "error", err)
			}
			return
		}
		if stopped != nil {
			// Said as a comment: no event carries it, and the client's
			// reconnect is refused with the same words.
			_, _ = fmt.Fprintf(w, ": the stream ends: %s\n\n", strings.ReplaceAll(stopped.Message, "\n", " "))
			_ = rc.Flush()
			return
		}
		for _, ev := range evs {
			if err := writeEvent(w, ev); err != nil {
				return
			}
			cursor = ev.ID
		}
		if len(evs) > 0 && rc.Flush() != nil {
			return
		}
		if len(evs) == streamBatch || grew {
			continue
		}
		if !m.awaitFeed(ctx, w, rc, sub, beat, recheck, r.Header.Get("Authorization"), agent) {
			return
		}
	}
}

// streamState is what an open stream knows of its agent between reads.
type streamState struct {
	agent, org string
	// reach is where the agent heard pacts when the stream opened; the
	// stream ends when its standing no longer covers all of it, so a
	// reconnect starts from what it may hear now.
	reach []string
	// seated holds the pacts the agent sits in, as of the last read: a
	// pact append wakes the stream only when it is in one of them (or
	// the agent wrote it, which may have seated it somewhere new).
	seated atomic.Pointer[[]string]
}

func newStreamState(agent string, h hearing) *streamState {
	st := &streamState{agent: agent, org: h.org, reach: h.projects}
	st.seated.Store(&[]string{})
	return st
}

// wakes is the stream's subscription: appends to its agent's pacts, and
// stops that may end its agent's standing. It runs on the hub's
// goroutine.
func (st *streamState) wakes(ev events.Event) bool {
	switch ev.Kind {
	case events.KindStop:
		return ev.StopsAgent(st.org, st.agent)
	case events.KindPact:
		return ev.AgentID == st.agent || slices.Contains(*st.seated.Load(), ev.PactID)
	}
	return false
}

// streamBatch reads the agent's standing, then the next batch of its
// events, in one snapshot: stopped says why the stream must end instead,
// when the agent no longer stands or hears less than when the stream
// opened. grew says it sits in a pact it did not sit in at the last read:
// an append there that committed after this snapshot was taken, but was
// dispatched before the stream knew the pact, woke nothing, so the caller
// reads again at once.
func (m *Module) streamBatch(ctx context.Context, st *streamState, filter []string, cursor int64) (evs []streamEvent, grew bool, stopped *errs.Error, err error) {
	m.dlv.streams.read(st.agent)
	err = m.db.RunInTx(ctx, readSnapshot(), func(ctx context.Context, tx bun.Tx) error {
		heard, err := m.hears(ctx, tx, st.agent)
		refusal, refused := errs.As(err)
		if err != nil && !refused {
			return err
		}
		if refused {
			stopped = refusal
			return nil
		}
		if !heard.covers(st.reach) {
			stopped = errs.E(errs.Forbidden, "agent %s may no longer read pacts in every project it could when the stream "+
				"opened; connect again to hear what it may now", st.agent)
			return nil
		}
		seated, err := seatedPacts(ctx, tx, st.agent)
		if err != nil {
			return err
		}
		grew = slices.ContainsFunc(seated, func(p string) bool { return !slices.Contains(*st.seated.Load(), p) })
		st.seated.Store(&seated)
		evs, err = agentEvents(ctx, tx, st.agent, st.reach, filter, cursor, streamBatch)
		return err
	})
	return evs, grew, stopped, err
}

// awaitFeed waits until the feed may hold more for the stream: a wake from
// the events hub (an append in one of its pacts, a stop that may concern
// its agent), or the periodic re-check under it (a missed notification
// costs at most one period). Heartbeats go out meanwhile. It returns false
// when the stream must end: the request is gone, the agent's token no
// longer holds, or the board drains (then the stream says so and the
// client reconnects, to another board, with Last-Event-ID).
func (m *Module) awaitFeed(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, sub *events.Subscription,
	beat, recheck *time.Ticker, authorization, agent string) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-m.draining:
			_, _ = fmt.Fprint(w, ": the board is shutting down; reconnect with Last-Event-ID\n\n")
			_ = rc.Flush()
			return false
		case <-sub.C():
			return true
		case <-recheck.C:
			return true
		case <-beat.C:
			if a, refused := m.streamAgent(ctx, authorization); refused != nil || a != agent {
				return false
			}
			if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil || rc.Flush() != nil {
				return false
			}
		}
	}
}

// refuseStream answers a stream that may not open.
func refuseStream(w http.ResponseWriter, refusal *errs.Error) {
	status := streamStatus(refusal.Code)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="PACT Board pact stream"`)
	}
	w.Header().Set("Cache-Control", "no-store")
	kernel.WriteError(w, status, refusal)
}

// streamStatus is the HTTP status of a refused stream: the gate's refusals
// of an agent are 403 (paused, banned, replaced) and 503 (the kill switch).
func streamStatus(code errs.Code) int {
	switch code {
	case errs.AgentPaused, errs.AgentUnknown:
		return http.StatusForbidden
	case errs.SystemHalted:
		return http.StatusServiceUnavailable
	}
	return kernel.AdminStatus(code)
}

// writeEvent writes ev as one server-sent event.
func writeEvent(w http.ResponseWriter, ev streamEvent) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Kind, data)
	return err
}

// streamAgent authenticates the bearer as a live agent token and admits
// its agent as a tool call would: a paused, banned or replaced agent, or a
// halted board, is refused with the gate's code.
func (m *Module) streamAgent(ctx context.Context, authorization string) (string, *errs.Error) {
	token, _ := strings.CutPrefix(authorization, "Bearer ")
	agent, ok, err := m.ident.AgentForToken(ctx, m.db, strings.TrimSpace(token))
	if err != nil {
		m.dlv.logger.Error("pact stream: check agent token", "error", err)
		return "", errs.E(errs.Unavailable, "the board cannot check tokens now; try again")
	}
	if !ok {
		return "", errs.E(errs.Unauthorized, "the pact stream needs your agent's live MCP token: Authorization: Bearer %s…",
			identity.TokenPrefix)
	}
	if _, err := identity.Admit(ctx, m.db, m.db, agent); err != nil {
		if e, ok := errs.As(err); ok {
			return "", e
		}
		m.dlv.logger.Error("pact stream: admit agent", "agent", agent, "error", err)
		return "", errs.E(errs.Unavailable, "the board cannot check agents now; try again")
	}
	return agent, nil
}

// streamArgs reads the optional pact filter (?pacts=<id>,<id>) and the
// resume point (Last-Event-ID, or ?last_event_id= for clients that cannot
// set headers); cursor is -1 when there is none: start from now.
func streamArgs(r *http.Request) (filter []string, cursor int64, refusal *errs.Error) {
	for p := range strings.SplitSeq(r.URL.Query().Get("pacts"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			filter = append(filter, p)
		}
	}
	if len(filter) > maxStreamFilter {
		return nil, 0, errs.E(errs.InvalidRequest, "pacts names at most %d pact ids", maxStreamFilter)
	}
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last_event_id")
	}
	if last == "" {
		return filter, -1, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(last), 10, 64)
	if err != nil || n < 0 {
		return nil, 0, errs.E(errs.InvalidRequest, "Last-Event-ID must be the id of an event this stream sent (a whole number)")
	}
	return filter, n, nil
}

// streamFailed answers a stream that could not start.
func (m *Module) streamFailed(w http.ResponseWriter, agent string, err error) {
	m.dlv.logger.Error("pact stream", "agent", agent, "error", err)
	kernel.WriteError(w, http.StatusServiceUnavailable, errs.E(errs.Unavailable, "the board cannot read pacts now; try again"))
}
