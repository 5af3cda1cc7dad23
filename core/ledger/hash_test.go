package ledger

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
)

// referenceSum is how an entry's hash was computed before appendCanonical:
// canon.Hash of the fields as a map. The two must never differ.
func referenceSum(t *testing.T, h *hashed) string {
	opt := func(b []byte) any {
		if b == nil {
			return nil
		}
		return string(b)
	}
	chain := []string{}
	for _, id := range h.MandateChain {
		chain = append(chain, string(id))
	}
	sum, err := canon.Hash(map[string]any{
		"chain_key": string(h.ChainKey), "project_id": opt(h.ProjectID), "task_id": opt(h.TaskID),
		"agent_id": opt(h.AgentID), "actor": string(h.Actor), "mandate_chain": chain, "action": string(h.Action),
		"payload_hash": string(h.PayloadHash), "outcome": string(h.Outcome), "at": canon.ISO(h.At),
		"prev_hash": string(h.PrevHash),
	})
	require.NoError(t, err)
	return sum
}

func TestEntryEncoderMatchesCanonHash(t *testing.T) {
	strs := []string{"", "web", "agent:code-web", "human:ana", "system", "pact_report", "ok", "not_found", Genesis,
		"ünïcødé ✓ 😀 中文", `say "hi"`, `back\slash`, "a/b<c>&d", "\x7f\u2028\u2029\uFFFD", "bad \xff\xfe utf8",
		"\xed\xa0\x80", strings.Repeat("long ", 2000)}
	for c := range 0x20 {
		strs = append(strs, fmt.Sprintf("ctl %c end", c))
	}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() []byte { return []byte(strs[r.IntN(len(strs))]) }
	maybe := func() []byte {
		if r.IntN(3) == 0 {
			return nil
		}
		return pick()
	}
	zones := []*time.Location{time.UTC, time.FixedZone("x", 3600), time.FixedZone("y", -9000)}
	times := []time.Time{
		time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 12, 0, 0, 123000, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 999, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 1000, time.UTC),
	}
	for i := range 3000 {
		h := hashed{ChainKey: pick(), ProjectID: maybe(), TaskID: maybe(), AgentID: maybe(), Actor: pick(),
			Action: pick(), PayloadHash: pick(), Outcome: pick(), PrevHash: pick(), MandateChain: [][]byte{}}
		if i%7 == 0 {
			h.ProjectID, h.TaskID, h.AgentID = []byte{}, []byte{}, []byte{} // empty, not null
		}
		for range []int{0, 1, 2, 5, 40}[i%5] {
			if r.IntN(4) == 0 {
				h.MandateChain = append(h.MandateChain, pick())
			} else {
				h.MandateChain = append(h.MandateChain, []byte(uuid.New().String()))
			}
		}
		if i < len(times) {
			h.At = times[i]
		} else {
			h.At = time.Unix(r.Int64N(1<<35)-1<<34, r.Int64N(1e9)).In(zones[i%len(zones)])
		}
		require.Equal(t, referenceSum(t, &h), h.Sum(), "entry %d: %+v", i, h)
	}
}

func TestAppendUUIDSpellsLikePostgreSQL(t *testing.T) {
	for range 100 {
		u := uuid.New()
		require.Equal(t, u.String(), string(appendUUID(nil, u[:])))
	}
}
