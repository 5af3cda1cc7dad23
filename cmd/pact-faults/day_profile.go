package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// pprofVar is the board's variable that opens its profiling listener
// (docs/benchmarks.md, "Profiling the board").
const pprofVar = "PACT_PPROF_ADDR"

// profiledEnv gives a board of a day run with -profile a profiling
// listener on a loopback port of its own.
func profiledEnv(o options, env map[string]string) error {
	if o.profileDir == "" {
		return nil
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	env[pprofVar] = fmt.Sprintf("127.0.0.1:%d", port)
	return nil
}

// profileBoards takes a CPU profile of every board over the middle half of
// the day (from a quarter of ctx's time to three quarters, past the start's
// warm-up and before the end's stragglers) and writes each to
// <profileDir>/<board>.cpu.pprof. It answers once they are written, with
// what it wrote.
func (d *dayRun) profileBoards(ctx context.Context) <-chan []string {
	done := make(chan []string, 1)
	deadline, ok := ctx.Deadline()
	if !ok {
		done <- []string{"profile: the day has no end to profile the middle of"}
		return done
	}
	whole := time.Until(deadline)
	seconds := max(1, int(whole/2/time.Second))
	go func() {
		select {
		case <-time.After(whole / 4):
		case <-ctx.Done():
			done <- []string{"profile: the day ended before its profile began"}
			return
		}
		var mu sync.Mutex
		var said []string
		var wg sync.WaitGroup
		for _, b := range d.s.boards {
			wg.Go(func() {
				line := d.profileBoard(b, seconds)
				mu.Lock()
				said = append(said, line)
				mu.Unlock()
			})
		}
		wg.Wait()
		done <- said
	}()
	return done
}

// profileBoard asks b for a CPU profile of seconds and writes it, saying
// where or what went wrong.
func (d *dayRun) profileBoard(b *board, seconds int) string {
	addr := b.env[pprofVar]
	path := filepath.Join(d.o.profileDir, b.name+".cpu.pprof")
	// The profile's own length bounds the request; a minute more covers a
	// busy board's answer.
	client := &http.Client{Timeout: time.Duration(seconds)*time.Second + time.Minute}
	resp, err := client.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, seconds))
	if err != nil {
		return fmt.Sprintf("profile of %s: %v", b.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Sprintf("profile of %s: %s %s", b.name, resp.Status, strings.TrimSpace(string(msg)))
	}
	if err := os.MkdirAll(d.o.profileDir, 0o755); err != nil {
		return fmt.Sprintf("profile of %s: %v", b.name, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Sprintf("profile of %s: %v", b.name, err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Sprintf("profile of %s: %v", b.name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Sprintf("profile of %s: %v", b.name, err)
	}
	return fmt.Sprintf("CPU profile of %s over %d s of the day's middle: %s (go tool pprof -top %s %s)",
		b.name, seconds, path, d.o.boardBin, path)
}
