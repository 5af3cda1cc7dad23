package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
)

// The board's server keeps an idle connection for two minutes, longer than
// a held call's 50 s, so a client between two held calls keeps it (REL-012:
// idle connections stay open until the drain ends); it gives a request's
// headers 10 s and the whole request kernel.MaxRequestRead (SEC-007), and
// never bounds a write, which a held call's answer would outlive. An idle
// timeout of 0 would fall back to the read timeout and close idle
// connections after 30 s.
func TestTheServerKeepsIdleConnectionsLongerThanAHeldCall(t *testing.T) {
	m := &Main{Logger: hclog.NewNullLogger()}
	srv := m.httpServer(http.NotFoundHandler())
	require.Equal(t, 2*time.Minute, srv.IdleTimeout)
	require.Greater(t, srv.IdleTimeout, 50*time.Second, "longer than a held call")
	require.Equal(t, 10*time.Second, srv.ReadHeaderTimeout)
	require.Equal(t, kernel.MaxRequestRead, srv.ReadTimeout)
	require.Zero(t, srv.WriteTimeout)
	require.NotNil(t, srv.ErrorLog)
}
