package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// holderSummary is the helper process's account of one round.
type holderSummary struct {
	Returned, Canceled, OK, WithTask int
	// First, Median and Last are when calls returned, in Unix nanoseconds.
	First, Median, Last int64
	Errors              []string `json:",omitempty"`
}

// TestHolderProcess is not a test: it is the client side of
// BenchmarkEventsHolders, run in a process of its own. It reads commands on
// stdin: "hold" makes each holder hold pact_events, as a plain JSON-RPC POST
// of the stateless protocol (2026-07-28: no initialize, the version in a
// header and in _meta), and hold it again whenever it times out, as a
// Runner does; "cancel" disconnects them all; "wait" waits for the board to
// answer them all with something; "returned" reports, without waiting,
// the calls that have returned so far (offers wake one holder a task).
// Each command is answered with one line "holders: <summary JSON>".
func TestHolderProcess(t *testing.T) {
	path := os.Getenv(holderEnv)
	if path == "" {
		t.Skip("the client side of BenchmarkEventsHolders")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var holders [][3]string
	for line := range strings.Lines(string(raw)) {
		if f := strings.Fields(line); len(f) == 3 {
			holders = append(holders, [3]string{f[0], f[1], f[2]})
		}
	}
	if err := holderLimits(len(holders)); err != nil {
		t.Fatal(err)
	}
	base := os.Getenv(holderURL)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: len(holders)}}

	type result struct {
		at              time.Time
		ok, task, abort bool
		err             string
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex // results, written as calls return
		results []result
		cancel  context.CancelFunc = func() {}
	)
	report := func(all bool) {
		if all {
			wg.Wait()
		}
		mu.Lock()
		defer mu.Unlock()
		var s holderSummary
		var at []int64
		for _, r := range results {
			if r.at.IsZero() {
				continue // still held
			}
			s.Returned++
			at = append(at, r.at.UnixNano())
			switch {
			case r.abort:
				s.Canceled++
			case r.ok:
				s.OK++
				if r.task {
					s.WithTask++
				}
			}
			if r.err != "" && len(s.Errors) < 5 {
				s.Errors = append(s.Errors, r.err)
			}
		}
		slices.Sort(at)
		if len(at) > 0 {
			s.First, s.Median, s.Last = at[0], at[len(at)/2], at[len(at)-1]
		}
		out, _ := json.Marshal(s)
		fmt.Printf("holders: %s\n", out)
	}
	summary := func() { report(true) }
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "hold":
			var ctx context.Context
			ctx, cancel = context.WithCancel(context.Background())
			results = make([]result, len(holders))
			for i, h := range holders {
				// 2,000 new connections a second at most: all at once, they
				// would overflow the board's listen backlog (net.core.somaxconn,
				// often 4,096), and a connection the board never accepted
				// times out minutes later. The board sets calls up far slower.
				if i%200 == 199 {
					time.Sleep(100 * time.Millisecond)
				}
				wg.Go(func() {
					ok, task, err := holdEvents(ctx, client, base, h[0], h[1], h[2])
					r := result{at: time.Now(), ok: ok, task: task, abort: errors.Is(err, context.Canceled)}
					if err != nil && !errors.Is(err, context.Canceled) {
						r.err = err.Error()
					}
					mu.Lock()
					results[i] = r
					mu.Unlock()
				})
			}
			fmt.Println(`holders: {}`)
		case "cancel":
			cancel()
			summary()
		case "returned":
			report(false)
		case "wait":
			summary()
			cancel()
			client.CloseIdleConnections()
		}
	}
	cancel()
}

// holdEvents holds pact_events as a raw stateless MCP request, again after
// each time out, and reports whether it ended well and with a task.
func holdEvents(ctx context.Context, client *http.Client, base, agent, token, mandateID string) (ok, task bool, err error) {
	for {
		done, withTask, timedOut, callErr := eventsOnce(ctx, client, base, agent, token, mandateID)
		if !done || !timedOut {
			return done, withTask, callErr
		}
	}
}

func eventsOnce(ctx context.Context, client *http.Client, base, agent, token, mandateID string) (ok, task, timedOut bool, err error) {
	const version = "2026-07-28"
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "pact_events", "arguments": map[string]any{"mandate_id": mandateID, "seconds": 50},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "holder", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp/a/"+agent, bytes.NewReader(body))
	if err != nil {
		return false, false, false, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "pact_events")
	resp, err := client.Do(req)
	if err != nil {
		return false, false, false, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, false, false, err
	}
	var out struct {
		Result *struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Tasks    []json.RawMessage `json:"tasks"`
				TimedOut bool              `json:"timed_out"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK || out.Result == nil || out.Result.IsError {
		return false, false, false, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	sc := out.Result.StructuredContent
	return true, len(sc.Tasks) > 0, sc.TimedOut, nil
}
