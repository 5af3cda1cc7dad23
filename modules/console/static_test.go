package console_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/modules/console"
)

// The console's files: index.html for /console/ and for its own routes,
// assets as they are, a missing asset 404, and the security headers on
// every answer.
func TestStaticFiles(t *testing.T) {
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	files := fstest.MapFS{"index.html": {Data: []byte("<html>console</html>")}, "assets/app.js": {Data: []byte("app()")}}
	w := kerneltest.New(t, kerneltest.Options{Modules: func(*kerneltest.World) []kernel.Module {
		return []kernel.Module{console.New(console.Options{Keys: keys, Assets: files})}
	}})
	br := newBrowser(t)
	for path, want := range map[string]string{"/console/": "<html>console</html>", "/console/tasks/42": "<html>console</html>",
		"/console/assets/app.js": "app()"} {
		got := br.get(w.URL + path)
		require.Equal(t, http.StatusOK, got.Status, path)
		require.Equal(t, want, got.Body, path)
	}
	require.Equal(t, http.StatusNotFound, br.get(w.URL+"/console/assets/gone.js").Status)
	require.Equal(t, http.StatusNotFound, br.get(w.URL+"/console/auth/nope").Status)
	require.Equal(t, http.StatusUnauthorized, br.get(w.URL+"/console/session").Status)
	require.Equal(t, http.StatusFound, br.get(w.URL+"/console").Status)
	for _, r := range br.replies {
		require.Contains(t, r.Header.Get("Content-Security-Policy"), "default-src 'self'")
		require.Contains(t, r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
		require.NotContains(t, r.Header.Get("Content-Security-Policy"), "unsafe-inline")
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
		require.Equal(t, "same-origin", r.Header.Get("Referrer-Policy"))
	}
}

// Without files the console serves sign-in and the session only.
func TestNoStaticFiles(t *testing.T) {
	b := newBoard(t, nil)
	require.Equal(t, http.StatusNotFound, newBrowser(t).get(b.URL+"/console/").Status)
}
