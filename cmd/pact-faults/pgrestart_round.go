package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/pactboard/pact/core/db"
)

// thread is scenario 3's conversation: a teller who posts a task in the
// quiet project each round (two agents exchange at most 10 messages on a
// task), and a listener on every board (listener i on board i) waiting
// for the teller's messages on it.
type thread struct {
	teller    agentCreds
	listeners []agentCreds
}

func (k *killRun) thread(ctx context.Context) (*thread, error) {
	teller, err := k.s.agent(ctx, "teller", quietProject)
	if err != nil {
		return nil, err
	}
	th := &thread{teller: teller}
	for i := range k.s.boards {
		l, err := k.s.agent(ctx, fmt.Sprintf("listener-%d", i), quietProject)
		if err != nil {
			return nil, err
		}
		th.listeners = append(th.listeners, l)
	}
	return th, nil
}

// outage is one round's figures.
type outage struct {
	down      time.Duration   // from the stop to the start of the server
	probed    int             // calls made to the boards while it was down
	refused   int             // of those, refused 503 unavailable with db.DownMessage
	recovered []time.Duration // per board: from the server's start to its first answer
	woken     int             // held waits that returned the round's message
	lastWake  time.Duration   // from the message's commit to the last of them
}

// heldWait is how one listener's held pact_wait ended.
type heldWait struct {
	listener int
	out      map[string]any
	code     string
	err      error
	at       time.Time
}

// pgRound holds a pact_wait of every listener on its board, stops the
// server in mode for a second while asking every board, starts it again,
// waits for every board to answer, and then sends every listener a
// message: each held wait must return it.
func (k *killRun) pgRound(ctx context.Context, th *thread, mode string, round int) (outage, error) {
	var f outage
	results := make(chan heldWait, len(th.listeners))
	for i, l := range th.listeners {
		c := newClient(l, k.s.boards[i].url)
		go func() {
			defer c.close()
			out, code, err := c.timed(ctx, k.st, "pact_wait", map[string]any{"mandate_id": l.mandate, "seconds": 50})
			results <- heldWait{listener: i, out: out, code: code, err: err, at: time.Now()}
		}()
	}
	sleep(ctx, 500*time.Millisecond) // every wait reaches its board and is held
	stopped := time.Now()
	if err := k.s.pg.Down(mode); err != nil {
		return f, err
	}
	for time.Since(stopped) < time.Second {
		for _, b := range k.s.boards {
			status, body, err := plainCall(ctx, b.url, th.teller, "pact_whoami", map[string]any{})
			f.probed++
			if err == nil && status == http.StatusServiceUnavailable && body["error"] == "unavailable" && body["message"] == db.DownMessage {
				f.refused++
				continue
			}
			k.problem("%s while PostgreSQL was down: status %d, %v, %v (want 503 unavailable: %q)", b.name, status, body, err, db.DownMessage)
		}
		sleep(ctx, 100*time.Millisecond)
	}
	if err := k.s.pg.Up(ctx); err != nil {
		return f, err
	}
	up := time.Now()
	f.down = up.Sub(stopped)
	for _, b := range k.s.boards {
		for {
			status, body, err := plainCall(ctx, b.url, th.teller, "pact_whoami", map[string]any{})
			if err == nil && status == http.StatusOK && body["isError"] == nil {
				break
			}
			if time.Since(up) > 10*time.Second {
				return f, fmt.Errorf("%s did not answer within 10s of PostgreSQL's start, without a restart: %d %v %v", b.name, status, body, err)
			}
			sleep(ctx, 20*time.Millisecond)
		}
		f.recovered = append(f.recovered, time.Since(up))
	}
	return f, k.tell(ctx, th, mode, round, results, &f)
}

// tell sends every listener the round's message, through the next board,
// and checks that its held wait returned it.
func (k *killRun) tell(ctx context.Context, th *thread, mode string, round int, results chan heldWait, f *outage) error {
	body := fmt.Sprintf("round %d: after the -m %s restart", round+1, mode)
	c := newClient(th.teller, k.s.boards[0].url)
	got, code, err := c.timed(ctx, k.st, "pact_post",
		map[string]any{"project_id": quietProject, "title": body, "mandate_id": th.teller.mandate})
	c.close()
	if code != "" {
		return fmt.Errorf("posting round %d's task: %s: %w", round+1, code, err)
	}
	task, _ := got["task_id"].(string)
	var sent time.Time
	for i, l := range th.listeners {
		c := newClient(th.teller, k.s.boards[(i+1)%len(k.s.boards)].url)
		_, code, err := c.timed(ctx, k.st, "pact_message", map[string]any{"task_id": task, "to": l.id,
			"body": body, "mandate_id": th.teller.mandate})
		c.close()
		if code != "" {
			return fmt.Errorf("telling %s: %s: %w", l.id, code, err)
		}
		sent = time.Now()
	}
	for range th.listeners {
		var h heldWait
		select {
		case h = <-results:
		case <-time.After(20 * time.Second):
			return fmt.Errorf("a pact_wait held through the restart did not return within 20s of the message: lost wakeup")
		}
		who := th.listeners[h.listener].id
		if h.code != "" {
			return fmt.Errorf("%s's pact_wait held through the restart ended %s: %w", who, h.code, h.err)
		}
		msgs, _ := h.out["messages"].([]any)
		bodies := []string{}
		for _, m := range msgs {
			b, _ := m.(map[string]any)["body"].(string)
			bodies = append(bodies, b)
		}
		if !slices.Contains(bodies, body) {
			return fmt.Errorf("%s's pact_wait held through the restart returned %v, not %q: lost wakeup", who, h.out, body)
		}
		f.woken++
		f.lastWake = max(f.lastWake, h.at.Sub(sent))
	}
	return nil
}
