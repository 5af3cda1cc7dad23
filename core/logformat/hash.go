package logformat

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/pactboard/pact/core/canon"
)

// Genesis is the previous hash of a chain's first entry.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Hashed is exactly what an entry's hash covers (docs/canonical-json.md);
// org_id is not part of it. A nil id is null. The fields are bytes so that
// verification hashes a row's values where the driver left them.
type Hashed struct {
	ChainKey     []byte
	ProjectID    []byte
	TaskID       []byte
	AgentID      []byte
	Actor        []byte
	MandateChain [][]byte
	Action       []byte
	PayloadHash  []byte
	Outcome      []byte
	At           time.Time
	PrevHash     []byte
}

// AppendCanonical appends the canonical JSON of h, the bytes canon.Hash
// writes for the same fields as a map (core/ledger's hash_test.go holds it
// to that). The keys are written in their sorted order by hand:
// verification runs this once per entry, and a map, its sort and a string
// per field cost more than the hash.
func (h *Hashed) AppendCanonical(b []byte) []byte {
	field := func(b []byte, key string, v []byte) []byte {
		return canon.AppendString(append(b, key...), v)
	}
	nullable := func(b []byte, key string, v []byte) []byte {
		if v == nil {
			return append(append(b, key...), "null"...)
		}
		return field(b, key, v)
	}
	b = field(b, `{"action":`, h.Action)
	b = field(b, `,"actor":`, h.Actor)
	b = nullable(b, `,"agent_id":`, h.AgentID)
	b = canon.AppendISO(append(b, `,"at":"`...), h.At)
	b = field(b, `","chain_key":`, h.ChainKey)
	b = append(b, `,"mandate_chain":[`...)
	for i, id := range h.MandateChain {
		if i > 0 {
			b = append(b, ',')
		}
		b = canon.AppendString(b, id)
	}
	b = field(b, `],"outcome":`, h.Outcome)
	b = field(b, `,"payload_hash":`, h.PayloadHash)
	b = field(b, `,"prev_hash":`, h.PrevHash)
	b = nullable(b, `,"project_id":`, h.ProjectID)
	b = nullable(b, `,"task_id":`, h.TaskID)
	return append(b, '}')
}

// HashHex is the lowercase hex SHA-256 of b, without a string.
func HashHex(b []byte) [64]byte {
	var out [64]byte
	sum := sha256.Sum256(b)
	hex.Encode(out[:], sum[:])
	return out
}

// Sum is the entry's hash, as the log stores it.
func (h *Hashed) Sum() string {
	out := HashHex(h.AppendCanonical(make([]byte, 0, 512)))
	return string(out[:])
}
