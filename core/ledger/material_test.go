package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The three parts ledger_append hashes around the chain key and the
// previous hash give the entry's hash, whatever the other fields hold.
func TestMaterialHashesAsTheEntry(t *testing.T) {
	task, agent := []byte("5f0c7c34-8a0e-4d5e-9d7e-2a7c1d3b4e5f"), []byte(`a "quoted", \ agent: prev_hash`)
	at := time.Date(2026, 11, 30, 13, 0, 0, 123456000, time.UTC)
	for _, h := range []hashed{
		{Actor: []byte("system"), Action: []byte("x"), PayloadHash: []byte("p"), Outcome: []byte("ok"), At: at.Truncate(time.Second)},
		{ProjectID: agent, TaskID: task, AgentID: agent, Actor: []byte(`agent:"prev_hash":"a"`), Action: []byte("pact_post"),
			MandateChain: [][]byte{task, task}, PayloadHash: []byte("abc"), Outcome: []byte("already_claimed"), At: at},
	} {
		before, between, after, err := material(h)
		require.NoError(t, err)
		for _, chain := range []string{"web", "_system:acme-2"} {
			for _, prev := range []string{Genesis, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"} {
				h.ChainKey, h.PrevHash = []byte(chain), []byte(prev)
				got := sha256.Sum256([]byte(string(before) + chain + string(between) + prev + string(after)))
				require.Equal(t, h.Sum(), hex.EncodeToString(got[:]))
			}
		}
	}
}
