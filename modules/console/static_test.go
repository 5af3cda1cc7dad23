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

// staticBoard is a board serving the console's files: index.html and
// assets/app.js.
func staticBoard(t *testing.T) *kerneltest.World {
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	files := fstest.MapFS{"index.html": {Data: []byte("<html>console</html>")}, "assets/app.js": {Data: []byte("app()")}}
	return kerneltest.New(t, kerneltest.Options{Modules: func(*kerneltest.World) []kernel.Module {
		return []kernel.Module{console.New(console.Options{Keys: keys, Assets: files})}
	}})
}

// The console's files: index.html for /console/ and for its own routes,
// assets as they are, a missing asset 404, and the security headers on
// every answer.
func TestStaticFiles(t *testing.T) {
	w := staticBoard(t)
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

// The console's files are read with GET or HEAD only: any other method
// is refused with the methods allowed, and serves no file.
func TestStaticFilesAreReadOnly(t *testing.T) {
	w := staticBoard(t)
	br := newBrowser(t)
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		require.Equal(t, http.StatusOK, br.do(method, w.URL+"/console/", nil).Status, method)
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		got := br.do(method, w.URL+"/console/", nil)
		require.Equal(t, http.StatusBadRequest, got.Status, method)
		require.Equal(t, "GET, HEAD", got.Header.Get("Allow"), method)
		require.NotContains(t, got.Body, "<html>console</html>", method)
	}
}

// The page is revalidated on every load (Cache-Control: no-cache), so a
// new build reaches the browser at once; an asset is not marked so.
func TestOnlyThePageIsRevalidated(t *testing.T) {
	w := staticBoard(t)
	br := newBrowser(t)
	for _, path := range []string{"/console/", "/console/tasks/42"} {
		require.Equal(t, "no-cache", br.get(w.URL+path).Header.Get("Cache-Control"), path)
	}
	require.Empty(t, br.get(w.URL+"/console/assets/app.js").Header.Get("Cache-Control"))
}
