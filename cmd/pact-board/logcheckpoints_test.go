package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logformat"
)

// LOG-009, LOG-011: a running board signs checkpoints of its chains, publishes the
// latest of each and its verifier keys under /.well-known/pact-log, and
// sends every checkpoint to the witnesses PACT_LOG_WITNESSES names; what
// it publishes verifies with the key it publishes and states the chain's
// size and head as the database holds them.
func TestABoardPublishesAndWitnessesItsCheckpoints(t *testing.T) {
	var mu sync.Mutex
	var witnessed []string
	witness := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		witnessed = append(witnessed, r.Header.Get("Pact-Log-Chain")+"\n"+string(body))
	}))
	defer witness.Close()
	b := startE2E(t, map[string]string{"PACT_LOG_CHECKPOINT_SECONDS": "1", "PACT_LOG_CHECKPOINT_ENTRIES": "1",
		"PACT_LOG_WITNESSES": witness.URL + "/log"})
	for i := range 3 {
		status, body, err := plainCall(b.base, "code-web", b.tokens["code-web"], "pact_post",
			map[string]any{"mandate_id": b.roots["code-web"], "project_id": "web", "title": "task " + string(rune('a'+i))})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status, "%v", body)
	}
	// Placed by the board's integrator at once; integrate here too, waiting
	// for it, so that the head read is the one the checkpoint will state.
	_, err := ledger.New(nil).Integrate(t.Context(), b.d, true)
	require.NoError(t, err)
	var size int64
	var head string
	require.NoError(t, b.d.Pool.QueryRow(t.Context(), `SELECT size, last_hash FROM entry_chain_heads WHERE chain_key = 'web'`).
		Scan(&size, &head))

	_, keysText := getText(t, b.base+"/.well-known/pact-log/keys")
	vkeys := strings.Fields(keysText)
	require.Len(t, vkeys, 1)
	trusted, err := logformat.Verifiers(vkeys...)
	require.NoError(t, err)
	var c logformat.Checkpoint
	require.Eventually(t, func() bool {
		resp, text := getText(t, b.base+"/.well-known/pact-log/web/checkpoint")
		if resp.StatusCode != http.StatusOK {
			return false
		}
		c, err = logformat.Open(text, trusted)
		require.NoError(t, err)
		return c.Size == size
	}, 15*time.Second, 100*time.Millisecond)
	require.Equal(t, head, c.Head)
	require.True(t, strings.HasSuffix(c.Origin, "/pact-log/web"), c.Origin)

	resp, body := getText(t, b.base+"/.well-known/pact-log/nowhere/checkpoint")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, body, `"error":"not_found"`)

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range witnessed {
			chain, note, _ := strings.Cut(w, "\n")
			if chain != "web" {
				continue
			}
			got, err := logformat.Open(note, trusted)
			require.NoError(t, err, "a witness gets signed notes")
			if got.Size == size {
				return true
			}
		}
		return false
	}, 15*time.Second, 100*time.Millisecond, "the witness got the latest checkpoint")
}

// getText GETs url and returns the answer and its body as text.
func getText(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}
