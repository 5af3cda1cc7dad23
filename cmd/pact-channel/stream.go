package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Backoffs of the pact stream: the first retry after a drop is quick, so a
// resumed stream loses little time; failures double it up to retryMax. A
// refusal (401, 403) or a stream that ends for a stop waits stoppedWait:
// it holds until a person acts, and retrying fast would only load the
// board. idle drops a connection that sent nothing, not even the board's
// 25-second heartbeat, for that long.
const (
	retryMin    = 200 * time.Millisecond
	retryMax    = 30 * time.Second
	stoppedWait = time.Minute
	idle        = 75 * time.Second
)

// pactStream holds GET /pacts/stream with the agent's token and resumes
// with Last-Event-ID after a drop (docs/pacts.md, "Delivery without
// polling").
type pactStream struct {
	cfg    *config
	client *http.Client
	logger *slog.Logger
	// last is the id of the last event handed to emit; -1 before the
	// first, when the stream starts from now.
	last int64
	// stopped holds the reason the last connection ended for a stop.
	stopped string
}

// run holds the stream until ctx ends, handing each event, once and in
// order, to emit; an event emit fails on is asked for again.
func (s *pactStream) run(ctx context.Context, emit func(context.Context, pactEvent) error) {
	wait := retryMin
	for {
		s.stopped = ""
		opened, status, err := s.hold(ctx, emit)
		switch {
		case ctx.Err() != nil:
			return
		case status == http.StatusUnauthorized || status == http.StatusForbidden || s.stopped != "":
			why := s.stopped
			if why == "" {
				why = err.Error()
			}
			s.logger.Error("pact-channel: the board stopped the pact stream; trying again in a minute", "why", why)
			wait = stoppedWait
		case opened:
			s.logger.Warn("pact-channel: the pact stream dropped; resuming", "last_event_id", s.last, "error", err)
			wait = retryMin
		default:
			s.logger.Warn("pact-channel: the pact stream did not open", "status", status, "error", err, "retry_in", wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if !opened && status != http.StatusUnauthorized && status != http.StatusForbidden && s.stopped == "" {
			wait = min(2*wait, retryMax)
		}
	}
}

// hold opens the stream once and reads it until it ends: opened says it
// answered 200, status is the answer's status.
func (s *pactStream) hold(ctx context.Context, emit func(context.Context, pactEvent) error) (opened bool, status int, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	u := s.cfg.URL + "/pacts/stream"
	if len(s.cfg.Pacts) > 0 {
		u += "?pacts=" + url.QueryEscape(strings.Join(s.cfg.Pacts, ","))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+s.cfg.Token)
	req.Header.Set("Accept", "text/event-stream")
	if s.last >= 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(s.last, 10))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		var refusal struct{ Message string }
		if json.Unmarshal(body, &refusal) == nil && refusal.Message != "" {
			return false, resp.StatusCode, fmt.Errorf("HTTP %d: %s", resp.StatusCode, refusal.Message)
		}
		return false, resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	// A connection that goes silent (a cut cable, a proxy that holds it
	// open) is dropped after idle, so the stream resumes elsewhere.
	watchdog := time.AfterFunc(idle, cancel)
	defer watchdog.Stop()
	return true, resp.StatusCode, s.read(ctx, resp.Body, watchdog, emit)
}

// read parses server-sent events off body: one event per id/event/data
// group, comments noted.
func (s *pactStream) read(ctx context.Context, body io.Reader, watchdog *time.Timer, emit func(context.Context, pactEvent) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var id, data string
	for sc.Scan() {
		watchdog.Reset(idle)
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			if why, ok := strings.CutPrefix(line, ": the stream ends: "); ok {
				s.stopped = why
			} else if from, ok := strings.CutPrefix(line, ": pact stream of "); ok {
				s.logger.Info("pact-channel: the pact stream is open", "stream", from)
			}
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		case line == "":
			if data != "" {
				if err := s.dispatch(ctx, id, data, emit); err != nil {
					return err
				}
			}
			id, data = "", ""
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("the board closed the stream")
}

// dispatch hands one event to emit unless it was handed already, and
// moves the resume point past it once emit took it.
func (s *pactStream) dispatch(ctx context.Context, id, data string, emit func(context.Context, pactEvent) error) error {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return fmt.Errorf("an event without a numeric id: %q", id)
	}
	if n <= s.last {
		return nil // sent before the drop
	}
	var ev pactEvent
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		return fmt.Errorf("event %d: %w", n, err)
	}
	ev.ID = n
	if err := emit(ctx, ev); err != nil {
		return err
	}
	s.last = n
	return nil
}
