package kernel_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// lastPayload is the stored payload and the org of the newest entry.
func lastPayload(t *testing.T, d *db.DB) (payload map[string]any, org, agent string) {
	var content []byte
	require.NoError(t, d.NewRaw(`SELECT p.content::text, e.org_id, coalesce(e.agent_id, '')
		FROM entries e JOIN payloads p ON p.id = e.payload_ref ORDER BY e.id DESC LIMIT 1`).
		Scan(context.Background(), &content, &org, &agent))
	require.NoError(t, json.Unmarshal(content, &payload))
	return payload, org, agent
}

// A call whose arguments hold an integer of a million digits is refused as
// invalid_request before any transaction of the call (no gate, no pipelined
// BEGIN), and the refusal is logged in the agent's organization with the
// arguments' digest, size and first bytes instead of the number: SEC-001.
// A paused agent's such call is refused the same way, as invalid_request.
func TestHugeNumbersAreRefusedBeforeAnyTransactionAndLoggedBounded(t *testing.T) {
	for _, paused := range []bool{false, true} {
		d, r := toolFixture(t)
		ctx := context.Background()
		if paused {
			_, err := d.ExecContext(ctx, `UPDATE agents SET status = 'paused' WHERE id = 'code-web'`)
			require.NoError(t, err)
		}
		args := json.RawMessage(`{"mandate_id":"x","n":` + strings.Repeat("9", 1<<20) + `}`)
		var trips []string
		stop := d.Watch(func(sql string) { trips = append(trips, sql) })
		_, err := r.Call(ctx, "code-web", "demo_freeze", args)
		stop()
		e, _ := errs.As(err)
		require.NotNil(t, e, "paused=%v: a refusal, not %.200v", paused, err)
		require.Equal(t, errs.InvalidRequest, e.Code, "paused=%v: %.200s", paused, e.Message)
		require.Less(t, len(e.Message), 400, "the message does not echo the number")
		require.Contains(t, e.Message, "2^53")
		for _, sql := range trips {
			require.NotEqual(t, "<batch>", sql, "the call's pipelined transaction was never opened")
			require.NotContains(t, sql, "agent_projects", "the gate never ran: %q", trips)
		}

		s := snapshot(t, d)
		require.Equal(t, 1, s.Entries, "the refusal is logged")
		require.Equal(t, "invalid_request", *s.Outcome)
		payload, org, agent := lastPayload(t, d)
		require.Equal(t, "default", org)
		require.Equal(t, "code-web", agent)
		sum := sha256.Sum256(args)
		require.Equal(t, map[string]any{
			"digest": "sha256:" + hex.EncodeToString(sum[:]),
			"bytes":  float64(len(args)),
			"head":   string(args[:256]),
		}, payload)
	}
}

// Any refusal's entry is bounded: arguments that are not JSON, or longer
// than 16 KiB, are logged by digest, size and first 256 bytes; short ones
// whole. A call that succeeds is logged whole.
func TestRefusalsLogLongOrUnparsedArgumentsByDigest(t *testing.T) {
	d, r := toolFixture(t)
	ctx := context.Background()
	long := `{"refuse": true, "note": "` + strings.Repeat("x", 20<<10) + `"}`
	for _, args := range []string{long, `{"refuse": tru` + strings.Repeat("e", 300)} {
		_, err := r.Call(ctx, "code-web", "demo_freeze", json.RawMessage(args))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
		payload, org, _ := lastPayload(t, d)
		require.Equal(t, "default", org)
		require.Equal(t, float64(len(args)), payload["bytes"])
		require.Equal(t, args[:256], payload["head"])
		require.Len(t, payload, 3)
	}
	_, err := r.Call(ctx, "code-web", "demo_freeze", json.RawMessage(`{"refuse": true}`))
	require.Equal(t, errs.ScopeExceeded, errs.CodeOf(err))
	payload, _, _ := lastPayload(t, d)
	require.Equal(t, map[string]any{"refuse": true}, payload)
}
