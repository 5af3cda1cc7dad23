package audit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/modules/audit"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// wellKnownWorld is a World with the WellKnown module under env, its logs
// at debug level in the returned buffer.
func wellKnownWorld(t *testing.T, env map[string]string) (*kerneltest.World, *logtest.Buffer) {
	t.Helper()
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	logs := &logtest.Buffer{}
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true, Env: env,
		Logger:  hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug}),
		Modules: func(*kerneltest.World) []kernel.Module { return []kernel.Module{audit.WellKnown(keys)} }})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Kernel.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	return w, logs
}

// LOG-009, LOG-011 at the module: the worker signs a checkpoint of a chain
// that grew, the route serves the latest, which verifies with the key the
// keys route serves and states the chain's size and head; every
// checkpoint goes to the witnesses; a chain with none is not found. The
// worker logs what it signed, only when it signed something, and warns
// only of what failed.
func TestTheWorkerSignsServesAndWitnessesCheckpoints(t *testing.T) {
	var mu sync.Mutex
	var witnessed []string
	witness := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		witnessed = append(witnessed, r.Header.Get("Pact-Log-Chain")+"\n"+string(body))
	}))
	t.Cleanup(witness.Close)
	w, logs := wellKnownWorld(t, map[string]string{"PACT_LOG_CHECKPOINT_SECONDS": "1",
		"PACT_LOG_CHECKPOINT_ENTRIES": "1", "PACT_LOG_WITNESSES": witness.URL + "/log"})
	w.Person("", "ana", identity.Owner)
	w.Project("ana", "web", false)
	var chain, head string
	var size int64
	_, err := w.Log.Integrate(t.Context(), w.DB, true)
	require.NoError(t, err)
	require.NoError(t, w.DB.Pool.QueryRow(t.Context(),
		`SELECT chain_key, size, last_hash FROM entry_chain_heads WHERE chain_key = 'web'`).Scan(&chain, &size, &head))

	status, keysText := get(t, w.URL+"/.well-known/pact-log/keys")
	require.Equal(t, http.StatusOK, status)
	trusted, err := logformat.Verifiers(strings.Fields(keysText)...)
	require.NoError(t, err)
	var c logformat.Checkpoint
	require.Eventually(t, func() bool {
		status, text := get(t, w.URL+"/.well-known/pact-log/web/checkpoint")
		if status != http.StatusOK {
			require.Equal(t, http.StatusNotFound, status, text)
			return false
		}
		c, err = logformat.Open(text, trusted)
		require.NoError(t, err)
		return c.Size == size
	}, 15*time.Second, 50*time.Millisecond)
	require.Equal(t, head, c.Head)

	status, body := get(t, w.URL+"/.well-known/pact-log/nowhere/checkpoint")
	require.Equal(t, http.StatusNotFound, status)
	require.Contains(t, body, `"error":"not_found"`)

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, got := range witnessed {
			if chain, note, _ := strings.Cut(got, "\n"); chain == "web" {
				if c, err := logformat.Open(note, trusted); err == nil && c.Size == size {
					return true
				}
			}
		}
		return false
	}, 15*time.Second, 50*time.Millisecond, "the witness got the latest checkpoint")

	// Two more ticks with nothing new: nothing is said to be signed.
	time.Sleep(2500 * time.Millisecond)
	text := logs.String()
	require.Contains(t, text, "log checkpoints signed")
	require.NotContains(t, text, "chains=0")
	require.NotContains(t, text, "[WARN]", "nothing failed")
}

// PACT_LOG_CHECKPOINT_SECONDS=0 turns checkpoints off: the routes still
// serve the keys, no worker runs, and no chain gets a checkpoint.
func TestNoCheckpointsWhenTheyAreOff(t *testing.T) {
	w, logs := wellKnownWorld(t, map[string]string{"PACT_LOG_CHECKPOINT_SECONDS": "0", "PACT_LOG_CHECKPOINT_ENTRIES": "1"})
	w.Person("", "ana", identity.Owner)
	w.Project("ana", "web", false)
	status, keysText := get(t, w.URL+"/.well-known/pact-log/keys")
	require.Equal(t, http.StatusOK, status)
	require.Len(t, strings.Fields(keysText), 1)
	time.Sleep(1500 * time.Millisecond)
	require.Zero(t, w.Count(`SELECT count(*) FROM log_checkpoints`))
	status, _ = get(t, w.URL+"/.well-known/pact-log/web/checkpoint")
	require.Equal(t, http.StatusNotFound, status)
	require.NotContains(t, logs.String(), "checkpoints", "no worker ran")
}
