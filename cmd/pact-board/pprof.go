package main

// Operator profiling: with PACT_PPROF_ADDR set, net/http/pprof is served on
// a listener of its own (docs/benchmarks.md, "Profiling the board"). It is
// never mounted on the board's handler, whose address agents and people
// reach: nothing authenticates the pages, and they show the process's
// command line, stacks and allocations.

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/hashicorp/go-hclog"
)

// pprofHandler mounts net/http/pprof's pages on a mux of its own. The
// package's import also registers them on http.DefaultServeMux, which
// nothing in the board serves.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and every named profile under it
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// PprofAddr is where profiling listens (useful with port 0); nil when
// PACT_PPROF_ADDR is unset. Valid once Ready is closed.
func (m *Main) PprofAddr() net.Addr { return m.pprofAddr }

// startPprof serves pprofHandler on PACT_PPROF_ADDR, if set, until stop.
// A profile or trace lasts as long as its request asks, so the server has
// no write timeout.
func (m *Main) startPprof() (stop func(), err error) {
	if m.Config.PprofAddr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", m.Config.PprofAddr)
	if err != nil {
		return nil, fmt.Errorf("listen for pprof on %s (PACT_PPROF_ADDR): %w", m.Config.PprofAddr, err)
	}
	m.pprofAddr = ln.Addr()
	logger := m.Logger.Named("pprof")
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		logger.Warn("profiling is reachable from other machines; set PACT_PPROF_ADDR to a loopback address",
			"addr", ln.Addr().String())
	}
	logger.Info("serving /debug/pprof/", "addr", ln.Addr().String())
	srv := &http.Server{Handler: pprofHandler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("profiling stopped", "error", err)
		}
	}()
	return func() { _ = srv.Close(); <-served }, nil
}
