package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/redact"
)

// Genesis is the prev_hash of a chain's first entry.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Outcome of an entry that succeeded; a refused one carries its error code.
const OK = "ok"

// Entry is what an operation asks the log to record.
type Entry struct {
	// OrgID anchors an entry that names neither a project nor an agent; the
	// project's organization, else the agent's, wins over it.
	OrgID        string
	ProjectID    string // "" for none
	TaskID       string // "" for none
	AgentID      string // "" for none
	Actor        string // "agent:<id>", "human:<id>" or "system"
	MandateChain []uuid.UUID
	Action       string
	Payload      any
	Outcome      string // OK or an error code; "" means OK
}

// Appended is the receipt of an append.
type Appended struct {
	ID       int64
	ChainKey string
	OrgID    string
	Hash     string
	At       time.Time
}

// Options configure a Log.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Log appends entries and verifies chains.
type Log struct {
	now func() time.Time
}

// New returns a Log.
func New(opts *Options) *Log {
	l := &Log{now: time.Now}
	if opts != nil && opts.Now != nil {
		l.now = opts.Now
	}
	return l
}

// Append adds e at the end of its chain inside tx. The chain head is locked
// until tx ends, so appends to one chain serialise and never fork.
func (l *Log) Append(ctx context.Context, tx bun.IDB, e Entry) (*Appended, error) {
	if e.Actor == "" || e.Action == "" {
		return nil, fmt.Errorf("ledger: an entry needs an actor and an action")
	}
	if e.Outcome == "" {
		e.Outcome = OK
	}
	content, payloadHash, err := preparePayload(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("ledger: payload of %s: %w", e.Action, err)
	}
	var org, systemChain string
	err = tx.NewRaw(`SELECT o.id, o.system_chain FROM orgs o WHERE o.id = coalesce(
		(SELECT org_id FROM projects WHERE id = ?), (SELECT org_id FROM agents WHERE id = ?), ?, 'default')`,
		e.ProjectID, e.AgentID, nullable(e.OrgID)).Scan(ctx, &org, &systemChain)
	if err != nil {
		return nil, fmt.Errorf("ledger: find the entry's organization: %w", err)
	}
	chainKey := systemChain
	if e.ProjectID != "" {
		chainKey = e.ProjectID
	}
	// Upsert-and-lock the head in one statement; the row lock is held until
	// the transaction ends.
	var prev string
	err = tx.NewRaw(`INSERT INTO entry_chain_heads (chain_key, last_hash) VALUES (?, ?)
		ON CONFLICT (chain_key) DO UPDATE SET chain_key = excluded.chain_key RETURNING last_hash`,
		chainKey, Genesis).Scan(ctx, &prev)
	if err != nil {
		return nil, fmt.Errorf("ledger: lock chain %s: %w", chainKey, err)
	}
	at := l.now().UTC().Truncate(time.Microsecond)
	mandates := uuidStrings(e.MandateChain)
	h := hashed{
		ChainKey: []byte(chainKey), ProjectID: bytesOf(e.ProjectID), TaskID: bytesOf(e.TaskID),
		AgentID: bytesOf(e.AgentID), Actor: []byte(e.Actor), MandateChain: make([][]byte, len(mandates)),
		Action: []byte(e.Action), PayloadHash: []byte(payloadHash), Outcome: []byte(e.Outcome), At: at,
		PrevHash: []byte(prev),
	}
	for i, id := range mandates {
		h.MandateChain[i] = []byte(id)
	}
	hash := h.sum()
	out := &Appended{ChainKey: chainKey, OrgID: org, Hash: hash, At: at}
	err = tx.NewRaw(`WITH p AS (INSERT INTO payloads (content) VALUES (?::jsonb) RETURNING id),
		e AS (INSERT INTO entries (org_id, chain_key, project_id, task_id, agent_id, actor, mandate_chain,
			action, payload_hash, payload_ref, outcome, at, prev_hash, hash)
			SELECT ?, ?, ?, ?::uuid, ?, ?, ?::uuid[], ?, ?, p.id, ?, ?, ?, ? FROM p RETURNING id),
		h AS (UPDATE entry_chain_heads SET last_hash = ? WHERE chain_key = ?)
		SELECT id FROM e`,
		string(content), org, chainKey, nullable(e.ProjectID), nullable(e.TaskID), nullable(e.AgentID), e.Actor,
		pgdialect.Array(mandates), e.Action, payloadHash, e.Outcome, at, prev, hash,
		hash, chainKey).Scan(ctx, &out.ID)
	if err != nil {
		return nil, fmt.Errorf("ledger: append to chain %s: %w", chainKey, err)
	}
	return out, nil
}

// preparePayload redacts the payload and returns its canonical JSON and hash.
func preparePayload(p any) ([]byte, string, error) {
	raw, err := canon.Marshal(p)
	if err != nil {
		return nil, "", fmt.Errorf("ledger: payload: %w", err)
	}
	tree, err := canon.Decode(raw)
	if err != nil {
		return nil, "", err
	}
	content, err := canon.Marshal(withoutNUL(redact.Value(tree)))
	if err != nil {
		return nil, "", err
	}
	return content, sha256hex(content), nil
}

// withoutNUL replaces U+0000, which PostgreSQL cannot store in jsonb, with
// U+FFFD, before anything is hashed.
func withoutNUL(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "\x00", "\uFFFD")
	case []any:
		for i, e := range x {
			x[i] = withoutNUL(e)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ReplaceAll(k, "\x00", "\uFFFD")] = withoutNUL(e)
		}
		return out
	}
	return v
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func uuidStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
