package ledger

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"time"

	"github.com/pactboard/pact/core/canon"
)

// checker checks a chain's rows in order, as the cursor in verify.go hands
// them over: binary values, the payload as jsonb's text. It keeps its buffers
// between rows, so a row costs no allocation.
type checker struct {
	h       hashed
	prev    []byte // the hash the next row's prev_hash must equal
	entry   []byte // the entry's canonical JSON
	payload []byte // the payload's canonical JSON
	idText  []byte // task_id and the mandate chain, spelled as uuid text
	recoder canon.Recoder
}

func newChecker(chainKey string) *checker {
	return &checker{h: hashed{ChainKey: []byte(chainKey)}, prev: []byte(Genesis)}
}

// The reasons a row is broken; VerifyChain's callers show them.
const (
	brokenLink     = "prev_hash does not match the previous entry"
	brokenContents = "entry contents do not match its hash"
	brokenPayload  = "payload does not match payload_hash"
	brokenOutside  = "entry is neither in its chain nor queued for it (left out of the chain)"
)

// pgEpoch is where PostgreSQL's binary timestamps count from, in Unix
// microseconds.
const pgEpoch = 946684800 * 1000000

// check checks one row and returns its id, and the reason it is broken or ""
// when it is not. An error means the row is not what the query asked for.
func (c *checker) check(v [][]byte) (int64, string, error) {
	if len(v) != 15 || len(v[0]) != 8 || len(v[9]) != 8 || len(v[13]) != 1 || len(v[14]) != 8 {
		return 0, "", fmt.Errorf("unexpected row shape")
	}
	id := int64(binary.BigEndian.Uint64(v[0]))
	if !bytes.Equal(v[10], c.prev) {
		return id, brokenLink, nil
	}
	h := &c.h
	h.ProjectID, h.AgentID, h.Actor, h.Action = v[1], v[3], v[4], v[6]
	h.PayloadHash, h.Outcome, h.PrevHash = v[7], v[8], v[10]
	// No hash covers an instant PostgreSQL spells infinity, nor a null in the
	// mandate chain: Append writes neither.
	at := int64(binary.BigEndian.Uint64(v[9]))
	if at == math.MaxInt64 || at == math.MinInt64 {
		return id, brokenContents, nil
	}
	h.At = time.UnixMicro(at + pgEpoch)
	ok, err := c.spellIDs(v[2], v[5])
	if err != nil || !ok {
		return id, brokenContents, err
	}
	c.entry = h.AppendCanonical(c.entry[:0])
	if sum := hashHex(c.entry); !bytes.Equal(sum[:], v[11]) {
		return id, brokenContents, nil
	}
	if v[13][0] == 0 { // not erased
		if v[12] == nil {
			return id, brokenPayload, nil
		}
		if c.payload, err = c.recoder.Append(c.payload[:0], v[12]); err != nil {
			return id, brokenPayload, nil
		}
		if sum := hashHex(c.payload); !bytes.Equal(sum[:], v[7]) {
			return id, brokenPayload, nil
		}
	}
	c.prev = append(c.prev[:0], v[11]...)
	return id, "", nil
}

// spellIDs spells task_id (a binary uuid, or nil) and mandate_chain (a
// binary uuid[]) into h as the uuid text the hash covers. false means the
// array holds what no hash covers: a null, or more than one dimension.
func (c *checker) spellIDs(task, chain []byte) (bool, error) {
	// PostgreSQL's array_send: ndim, has-nulls flag, element type, then per
	// dimension its length and lower bound, then per element its length (-1
	// for null) and bytes.
	if len(chain) < 12 {
		return false, fmt.Errorf("mandate_chain: short array")
	}
	n, elems := 0, chain[12:]
	switch binary.BigEndian.Uint32(chain) {
	case 0:
	case 1:
		if len(elems) < 8 {
			return false, fmt.Errorf("mandate_chain: short array")
		}
		n, elems = int(binary.BigEndian.Uint32(elems)), elems[8:]
		if n > len(elems)/4 { // each element takes at least its length
			return false, fmt.Errorf("mandate_chain: %d elements in %d bytes", n, len(elems))
		}
	default:
		return false, nil
	}
	if task != nil && len(task) != 16 {
		return false, fmt.Errorf("task_id: %d bytes", len(task))
	}
	// Room for every uuid first, so the slices taken below stay valid.
	if need := 36 * (n + 1); cap(c.idText) < need {
		c.idText = make([]byte, 0, need)
	}
	c.idText, c.h.TaskID = c.idText[:0], nil
	if task != nil {
		c.idText = appendUUID(c.idText, task)
		c.h.TaskID = c.idText
	}
	c.h.MandateChain = c.h.MandateChain[:0]
	for range n {
		if len(elems) < 4 {
			return false, fmt.Errorf("mandate_chain: short array")
		}
		size := int32(binary.BigEndian.Uint32(elems))
		if size == -1 {
			return false, nil
		}
		if size != 16 || len(elems) < 20 {
			return false, fmt.Errorf("mandate_chain: a uuid of %d bytes", size)
		}
		start := len(c.idText)
		c.idText = appendUUID(c.idText, elems[4:20])
		c.h.MandateChain = append(c.h.MandateChain, c.idText[start:])
		elems = elems[20:]
	}
	return true, nil
}

// appendUUID spells a binary uuid as PostgreSQL's text does: lowercase hex,
// 8-4-4-4-12.
func appendUUID(dst, u []byte) []byte {
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], u[10:16])
	return append(dst, s[:]...)
}
