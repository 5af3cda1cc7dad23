package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/audit"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/modules/notes"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/modules/people"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// realBoard is a board with the modules cmd/pact-board registers (less
// its own well-known and events listeners), the usual office, and a clock
// the test can move.
type realBoard struct {
	*kerneltest.World
	skew *atomic.Int64 // how far the board's clock runs ahead, in ns
}

func newRealBoard(t *testing.T) *realBoard {
	t.Helper()
	skew := new(atomic.Int64)
	w := kerneltest.New(t, kerneltest.Options{
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) },
		Modules: func(w *kerneltest.World) []kernel.Module {
			return []kernel.Module{board.New(), mandates.New(), notes.New(), people.New(), audit.New(),
				notify.New(notify.Options{}), credentials.New(credentials.Options{Keys: w.Mandates.Keys()})}
		}})
	w.Office()
	return &realBoard{World: w, skew: skew}
}

// hire hires an agent through the Admin API as ana and returns its setup code.
func (b *realBoard) hire(t *testing.T, body string) string {
	t.Helper()
	got := b.Admin("ana", "POST", "/agents/hire", body)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	c := got.Body["connect"].(map[string]any)
	require.Equal(t, "setup_code", c["kind"])
	return c["code"].(string)
}

// machine is the agent's machine: a home and a project directory.
type machine struct {
	home, dir string
	hookDir   string // $PACT_HOOK_DIR, "" when unset
	// goos and lookPath stand for runtime.GOOS and exec.LookPath ("" and
	// nil: linux, nothing found).
	goos     string
	lookPath func(string) (string, error)
}

func newMachine(t *testing.T) machine {
	t.Helper()
	m := machine{home: filepath.Join(t.TempDir(), "home"), dir: filepath.Join(t.TempDir(), "repo")}
	require.NoError(t, os.MkdirAll(m.home, 0o755))
	require.NoError(t, os.MkdirAll(m.dir, 0o755))
	return m
}

// connect runs pact-connect in-process on m.
func (m machine) connect(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, env{Home: m.home, Dir: m.dir, HookDir: m.hookDir, Stdout: &out, Stderr: &errOut,
		GOOS: m.goos, LookPath: m.lookPath})
	return code, out.String(), errOut.String()
}

// files lists every file and directory under the machine's home and
// project directory, with its mode.
func (m machine) files(t *testing.T) map[string]fs.FileMode {
	t.Helper()
	out := map[string]fs.FileMode{}
	for _, root := range []string{m.home, m.dir} {
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == root {
				return err
			}
			st, err := os.Stat(p)
			out[p] = st.Mode()
			return err
		}))
	}
	return out
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	return out
}

// requireMode fails unless path has exactly mode perm.
func requireMode(t *testing.T, path string, perm fs.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, perm, st.Mode().Perm(), "%s is %v", path, st.Mode().Perm())
}

// readEnv reads the variables of an env file as sh would (the values
// pact-connect writes are bare or single-quoted).
func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]string{}
	for _, line := range logicalLines(string(raw)) {
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(v, "'") {
			v = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'"), `'"'"'`, "'")
		}
		out[k] = v
	}
	return out
}

// whoami connects the official MCP client to url with the headers of a
// written server entry and calls pact_whoami, returning its agent id.
func whoami(t *testing.T, url string, headers map[string]any) string {
	t.Helper()
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v.(string))
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "pact-connect-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: withHeaders{h}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pact_whoami", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	var out struct {
		Agent struct {
			ID string `json:"id"`
		} `json:"agent"`
	}
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &out))
	return out.Agent.ID
}

type withHeaders struct{ h http.Header }

func (w withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range w.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}
