package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

// The three parts ledger_append hashes around the chain key and the
// previous hash give the entry's hash, whatever the other fields hold.
func TestMaterialHashesAsTheEntry(t *testing.T) {
	task, agent := "5f0c7c34-8a0e-4d5e-9d7e-2a7c1d3b4e5f", `a "quoted", \ agent: prev_hash`
	for _, h := range []hashed{
		{Actor: "system", Action: "x", PayloadHash: "p", Outcome: "ok", At: "2026-01-01T00:00:00+00:00", MandateChain: []string{}},
		{ProjectID: &agent, TaskID: &task, AgentID: &agent, Actor: `agent:"prev_hash":"a"`, Action: "pact_post",
			MandateChain: []string{task, task}, PayloadHash: "abc", Outcome: "already_claimed", At: "2026-11-30T13:00:00.123456+00:00"},
	} {
		before, between, after, err := h.material()
		require.NoError(t, err)
		for _, chain := range []string{"web", "_system:acme-2"} {
			for _, prev := range []string{Genesis, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"} {
				h.ChainKey, h.PrevHash = chain, prev
				want, err := h.sum()
				require.NoError(t, err)
				got := sha256.Sum256([]byte(string(before) + chain + string(between) + prev + string(after)))
				require.Equal(t, want, hex.EncodeToString(got[:]))
			}
		}
	}
}
