package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// tokenLine is how pact-board --demo prints the demo agent's token on its
// first start (cmd/pact-board/firstrun.go).
var tokenLine = regexp.MustCompile(`Agent token \(shown once[^)]*\): (\S+)`)

// runRestart is scenario 8, an agent waiting through a board restart: one
// board on the embedded default (no DATABASE_URL: it runs its own
// PostgreSQL under PACT_DATA_DIR) is stopped with SIGTERM and started again,
// o.rounds times (at most 5). Every task posted before must be there after,
// the call held across the stop must end, and the agent's call re-issued
// with its last next_since after the restart must get the task posted then.
func runRestart(ctx context.Context, o options, out io.Writer) (err error) {
	// Not a private temporary directory: the embedded server may run as the
	// postgres user, which must reach its data directory.
	dir, err := os.MkdirTemp("", "pact-faults-embedded-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			fmt.Fprintf(out, "  the board's log and data are kept in %s\n", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "board.log")
	b, err := newBoard("embedded", o.boardBin, logPath, map[string]string{"PACT_DATA_DIR": filepath.Join(dir, "data")}, "--demo")
	if err != nil {
		return err
	}
	first := time.Now()
	if err := b.start(ctx); err != nil {
		return err
	}
	// SIGTERM: the board stops its embedded PostgreSQL as it leaves.
	defer func() { _ = b.stop() }()
	fmt.Fprintf(out, "  first start on the embedded default (initdb, migrations): %s\n", time.Since(first).Round(time.Millisecond))
	logText, err := os.ReadFile(logPath)
	if err != nil {
		return err
	}
	m := tokenLine.FindSubmatch(logText)
	if m == nil {
		return fmt.Errorf("pact-board --demo printed no agent token; see %s", logPath)
	}
	agent := agentCreds{id: "code-demo", token: string(m[1])}
	c := newClient(agent, b.url)
	defer c.close()
	st := newStats()
	who, _, err := c.timed(ctx, st, "pact_whoami", nil)
	if err != nil {
		return err
	}
	mandates, _ := who["mandates"].([]any)
	if len(mandates) == 0 {
		return fmt.Errorf("pact_whoami names no mandate: %v", who)
	}
	agent.mandate, _ = mandates[0].(map[string]any)["id"].(string)
	w := &watcher{r: &roaming{agent: agent, clients: []*client{c}}, project: "demo", seen: map[string]bool{}}
	k := &killRun{st: st, out: out}
	if _, code, err := k.events(ctx, w, c, 0); code != "" {
		return err
	}
	var posted []string
	var stops, starts, wakes []time.Duration
	ended := map[string]int{}
	rounds := min(o.rounds, 5)
	for r := range rounds {
		id, err := postDemo(ctx, st, c, agent, fmt.Sprintf("before restart %d", r+1))
		if err != nil {
			return err
		}
		posted = append(posted, id)
		if _, code, err := k.events(ctx, w, c, 0); code != "" || !w.seen[id] {
			return fmt.Errorf("pact_events did not return the task just posted: %s %v", code, err)
		}
		held := make(chan string, 1)
		go func() {
			tasks, code, _ := k.events(ctx, w, c, 5)
			if code == "" && len(tasks) > 0 {
				code = fmt.Sprintf("answered with tasks %v that no one posted", tasks)
			}
			held <- code
		}()
		sleep(ctx, 300*time.Millisecond)
		t0 := time.Now()
		if err := b.stop(); err != nil {
			return err
		}
		stops = append(stops, time.Since(t0))
		select {
		case code := <-held:
			if strings.HasPrefix(code, "answered with") {
				return fmt.Errorf("the call held through the stop: %s", code)
			}
			// It may end answered with nothing, refused (a drain that says
			// "reconnect"), or cut: each tells the agent to call again.
			if code == "" {
				code = "answered"
			}
			ended[code]++
		case <-time.After(30 * time.Second):
			return fmt.Errorf("a pact_events call held through the stop did not end within 30s")
		}
		t1 := time.Now()
		if err := b.start(ctx); err != nil {
			return err
		}
		starts = append(starts, time.Since(t1))
		// The data survived: everything posted so far is still claimable.
		fresh := &watcher{r: w.r, project: "demo", seen: map[string]bool{}}
		if err := k.drain(ctx, fresh); err != nil {
			return err
		}
		for _, id := range posted {
			if !fresh.seen[id] {
				return fmt.Errorf("task %s, posted before restart %d, is gone after it", id, r+1)
			}
		}
		// The agent re-issues its call with its last next_since; work posted
		// meanwhile (by another session) wakes it.
		woke := make(chan []string, 1)
		go func() {
			tasks, _, _ := k.events(ctx, w, c, 20)
			woke <- tasks
		}()
		sleep(ctx, 300*time.Millisecond)
		other := newClient(agent, b.url)
		id, err = postDemo(ctx, st, other, agent, fmt.Sprintf("after restart %d", r+1))
		other.close()
		if err != nil {
			return err
		}
		posted = append(posted, id)
		t2 := time.Now()
		select {
		case tasks := <-woke:
			if !slices.Contains(tasks, id) {
				return fmt.Errorf("the re-issued call returned %v without task %s posted after the restart", tasks, id)
			}
			wakes = append(wakes, time.Since(t2))
		case <-time.After(30 * time.Second):
			return fmt.Errorf("the re-issued call did not return task %s within 30s", id)
		}
	}
	sp50, _, smax := percentiles(stops)
	rp50, _, rmax := percentiles(starts)
	wp50, _, wmax := percentiles(wakes)
	fmt.Fprintf(out, "  %d restarts; tasks posted: %d, all present after every restart\n", rounds, len(posted))
	fmt.Fprintf(out, "  SIGTERM to exit: p50=%s max=%s; the calls held through it ended: %v\n", round(sp50), round(smax), ended)
	fmt.Fprintf(out, "  start to /readyz (embedded PostgreSQL started again): p50=%s max=%s\n", round(rp50), round(rmax))
	fmt.Fprintf(out, "  post to the waiting agent's answer after the restart: p50=%s max=%s\n", round(wp50), round(wmax))
	st.print(out)
	return nil
}

func postDemo(ctx context.Context, st *stats, c *client, a agentCreds, title string) (string, error) {
	got, code, err := c.timed(ctx, st, "pact_post", map[string]any{"project_id": "demo", "title": title, "mandate_id": a.mandate})
	if code != "" {
		return "", fmt.Errorf("pact_post: %s: %w", code, err)
	}
	id, _ := got["task_id"].(string)
	return id, nil
}
