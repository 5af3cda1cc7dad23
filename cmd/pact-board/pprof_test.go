package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// status GETs url and returns the status and body.
func status(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// With PACT_PPROF_ADDR set, profiling answers on that address and only
// there: the board's own listener, which agents and people reach, has no
// /debug/pprof/, and the profiling listener serves nothing else.
func TestPprofIsServedOnlyOnItsOwnListener(t *testing.T) {
	m, logs, _ := startMain(t, map[string]string{"PACT_PPROF_ADDR": "127.0.0.1:0"})
	require.NotNil(t, m.PprofAddr())
	pprofBase, base := "http://"+m.PprofAddr().String(), "http://"+m.Addr().String()
	require.NotEqual(t, pprofBase, base)
	require.Contains(t, logs.String(), "serving /debug/pprof/")
	require.NotContains(t, logs.String(), "reachable from other machines", "a loopback address is not warned about")

	code, body := status(t, pprofBase+"/debug/pprof/")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "goroutine")
	code, body = status(t, pprofBase+"/debug/pprof/heap?debug=1")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "heap profile")
	code, _ = status(t, pprofBase+"/healthz")
	require.Equal(t, http.StatusNotFound, code, "the profiling listener serves the profiles only")

	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/cmdline"} {
		code, body := status(t, base+path)
		require.Equal(t, http.StatusNotFound, code, "%s on the board's listener: %s", path, body)
	}
}

// Unset, PACT_PPROF_ADDR serves no profiles anywhere: no listener is
// opened, and the board's own listener has none.
func TestPprofIsOffByDefault(t *testing.T) {
	m, logs, _ := startMain(t, nil)
	require.Nil(t, m.PprofAddr(), "no profiling listener")
	require.NotContains(t, logs.String(), "pprof")
	code, _ := status(t, "http://"+m.Addr().String()+"/debug/pprof/")
	require.Equal(t, http.StatusNotFound, code)
}
