package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// runCells is the first simulation of docs/scaling.md, "The way to grow":
// two cells, each a board on a PostgreSQL cluster of its own holding whole
// organizations, behind one routing layer. The router keeps the directory
// the document asks for (agent id → cell) and sends every request for
// /mcp/a/<agent> to the agent's cell; the boards run unchanged, their
// public URL the router's, as behind any reverse proxy. Half of the day's
// agents, projects and pacts work in each cell, through the router, with
// holders woken by their own cell's LISTEN. It fails unless both cells'
// logs verify, each cluster holds only its own cell's work,
// and the router never met an agent its directory lacks; it shows the
// board-wide sequences overlapping across the cells.
func runCells(ctx context.Context, o options, out io.Writer) (err error) {
	r, err := startRouter()
	if err != nil {
		return err
	}
	defer r.close()
	env := map[string]string{"PACT_PUBLIC_URL": r.url}
	maps.Copy(env, o.boardEnv)
	o.boardEnv = env
	half := o
	half.agents, half.projects, half.pacts, half.people = max(8, o.agents/2), max(1, o.projects/2), o.pacts/2, 0
	var days []*dayRun
	for c := range 2 {
		s, err := startShared(ctx, o, 1)
		if err != nil {
			return err
		}
		defer func() { s.close(err != nil, out) }()
		d := newDay(s, half, fmt.Sprintf("c%d-", c), []string{r.url})
		cell := s.boards[0].url
		d.placed = func(agent string) { r.place(agent, cell) }
		if err := d.hire(ctx); err != nil {
			return fmt.Errorf("cell %d: %w", c, err)
		}
		days = append(days, d)
	}
	fmt.Fprintf(out, "  two cells, each one board on a PostgreSQL of its own, behind one router at %s\n", r.url)
	run, stop := context.WithTimeout(ctx, o.dayFor)
	defer stop()
	type played struct{ elapsed, lag time.Duration }
	results := make([]played, len(days))
	logs := make([]strings.Builder, len(days))
	var wg sync.WaitGroup
	for i, d := range days {
		wg.Go(func() {
			elapsed, lag := d.play(run, &logs[i])
			results[i] = played{elapsed, lag}
		})
	}
	wg.Wait()
	var errs []error
	for i, d := range days {
		fmt.Fprintf(out, "== cell %d\n", i)
		d.describe(out)
		fmt.Fprint(out, logs[i].String())
		if err := d.report(out, results[i].elapsed, results[i].lag); err != nil {
			errs = append(errs, fmt.Errorf("cell %d: %w", i, err))
		}
	}
	fmt.Fprintln(out, "== across the cells")
	if err := checkCells(ctx, days, r, out); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkCells checks each cell's log and that no cluster holds another
// cell's work (tasks posted by its agents, which are named by cell), and
// shows where the clusters' sequences stand.
func checkCells(ctx context.Context, days []*dayRun, r *router, out io.Writer) error {
	for i, d := range days {
		entries, err := d.s.verifyLog(ctx)
		if err != nil {
			return fmt.Errorf("cell %d: %w", i, err)
		}
		var own, others, maxEntry int64
		if err := d.s.db.NewRaw(`SELECT
				(SELECT count(*) FROM tasks WHERE created_by LIKE ?),
				(SELECT count(*) FROM tasks WHERE created_by NOT LIKE ?),
				(SELECT coalesce(max(id), 0) FROM entries)`, d.prefix+"%", d.prefix+"%").
			Scan(ctx, &own, &others, &maxEntry); err != nil {
			return fmt.Errorf("cell %d: %w", i, err)
		}
		fmt.Fprintf(out, "  cell %d: %d routed requests, its log verifies (%d entries), its cluster holds %d tasks of its own agents and %d of other cells'; entries.id up to %d\n",
			i, r.routed(d.s.boards[0].url), entries, own, others, maxEntry)
		if others != 0 || own == 0 {
			return fmt.Errorf("cell %d: its cluster holds %d tasks of its own agents and %d of other cells'", i, own, others)
		}
	}
	fmt.Fprintf(out, "  the cells' entry ids overlap (each cluster numbers from 1: docs/scaling.md, \"Sequences clients see\"); requests for agents the directory lacks: %d\n",
		r.unknown.Load())
	if n := r.unknown.Load(); n != 0 {
		return fmt.Errorf("the router met %d requests for agents its directory lacks", n)
	}
	return nil
}

// router is the routing layer of docs/scaling.md: a reverse proxy that
// sends /mcp/a/<agent> to the cell its directory places the agent in,
// keeping the Host the client sent (the boards' public URL is the
// router's).
type router struct {
	url string
	srv *http.Server

	mu        sync.RWMutex
	directory map[string]string // agent id → its cell's board URL
	proxies   map[string]*httputil.ReverseProxy
	counts    map[string]*atomic.Int64

	unknown atomic.Int64
}

// startRouter listens on a loopback port and serves until close.
func startRouter() (*router, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &router{url: "http://" + ln.Addr().String(), directory: map[string]string{},
		proxies: map[string]*httputil.ReverseProxy{}, counts: map[string]*atomic.Int64{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *router) close() { _ = r.srv.Close() }

// place records agent in the cell whose board is at cell.
func (r *router) place(agent, cell string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.directory[agent] = cell
	if r.proxies[cell] == nil {
		target, _ := url.Parse(cell)
		r.proxies[cell] = &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
		}, FlushInterval: -1, ErrorHandler: proxyError}
		r.counts[cell] = &atomic.Int64{}
	}
}

// routed is how many requests went to cell.
func (r *router) routed(cell string) int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c := r.counts[cell]; c != nil {
		return c.Load()
	}
	return 0
}

func (r *router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	agent, _, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/mcp/a/"), "/")
	r.mu.RLock()
	cell, ok := r.directory[agent]
	proxy, count := r.proxies[cell], r.counts[cell]
	r.mu.RUnlock()
	if !strings.HasPrefix(req.URL.Path, "/mcp/a/") || !ok {
		r.unknown.Add(1)
		http.Error(w, `{"error":"not_found","message":"no cell holds this agent"}`, http.StatusNotFound)
		return
	}
	count.Add(1)
	proxy.ServeHTTP(w, req)
}

// proxyError answers 502 when the cell cannot be reached; a client that
// went away (the day's end cancels its held calls) gets nothing.
func proxyError(w http.ResponseWriter, req *http.Request, err error) {
	if req.Context().Err() != nil {
		return
	}
	http.Error(w, `{"error":"unavailable","message":"the agent's cell cannot be reached: `+err.Error()+`"}`, http.StatusBadGateway)
}
