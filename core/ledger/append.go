package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/redact"
)

// Genesis is the prev_hash of a chain's first entry.
const Genesis = logformat.Genesis

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

// Appended is the receipt of an append. The entry's place in its chain
// and its hash come later, from the integrator (Integrate).
type Appended struct {
	ID       int64
	ChainKey string
	OrgID    string
	At       time.Time
}

// Options configure a Log.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Statements is the database's statement mode (db.StatementMode);
	// empty means prepared.
	Statements string
	// Metrics counts the entries appended (nil: not counted).
	Metrics *metrics.Metrics
}

// Log appends entries and verifies chains.
type Log struct {
	now     func() time.Time
	mode    pgx.QueryExecMode // of Append's statement
	metrics *metrics.Metrics
	// committed wakes the integrator (Integrator.Run): an entry committed.
	committed chan struct{}
}

// New returns a Log.
func New(opts *Options) *Log {
	l := &Log{now: time.Now, mode: pgx.QueryExecModeCacheStatement, committed: make(chan struct{}, 1)}
	if opts != nil && opts.Now != nil {
		l.now = opts.Now
	}
	if opts != nil {
		if m, err := db.StatementMode(opts.Statements); err == nil {
			l.mode = m
		}
		l.metrics = opts.Metrics
	}
	return l
}

// Append stores e inside tx, in one round trip (the SQL function
// ledger_append), and queues it for its chain: once tx commits, the
// integrator gives it its place and its hash (Integrate). It takes no lock
// another append waits for (docs/log-sequencing.md).
func (l *Log) Append(ctx context.Context, tx bun.IDB, e Entry) (*Appended, error) {
	sqlText, args, out, err := l.appendArgs(e)
	if err != nil {
		return nil, err
	}
	sqlTx, err := db.Handle(tx)
	if err != nil {
		return nil, err
	}
	rows, err := sqlTx.QueryContext(ctx, sqlText, append([]any{l.mode}, args...)...)
	if err == nil {
		err = db.ScanOne(rows, &out.ID, &out.OrgID, &out.ChainKey)
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: append %s: %w", e.Action, err)
	}
	l.appended(e)
	return out, nil
}

// appended counts e's append (it may still roll back with its transaction:
// the counter measures the log's work, not its size).
func (l *Log) appended(e Entry) {
	outcome := "refused"
	if e.Outcome == OK || e.Outcome == "" {
		outcome = OK
	}
	l.metrics.LogAppend(outcome)
}

// AppendStep is Append as a step of a pipelined round trip (db.Tx.Commit
// sends it with the COMMIT); out is filled in when the step has run.
func (l *Log) AppendStep(e Entry) (step db.Step, out *Appended, err error) {
	sqlText, args, out, err := l.appendArgs(e)
	if err != nil {
		return db.Step{}, nil, err
	}
	return db.Step{SQL: sqlText, Args: args, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return fmt.Errorf("ledger: append %s: %w", e.Action, err)
			}
			return fmt.Errorf("ledger: append %s: no receipt", e.Action)
		}
		if err := rows.Scan(&out.ID, &out.OrgID, &out.ChainKey); err != nil {
			return err
		}
		l.appended(e)
		return nil
	}}, out, nil
}

const appendSQL = `SELECT r_id, r_org, r_chain FROM ledger_append(
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`

// appendArgs checks e and hashes it: the statement that appends it, its
// arguments and the receipt to fill in.
func (l *Log) appendArgs(e Entry) (string, []any, *Appended, error) {
	if e.Actor == "" || e.Action == "" {
		return "", nil, nil, fmt.Errorf("ledger: an entry needs an actor and an action")
	}
	if e.Outcome == "" {
		e.Outcome = OK
	}
	content, payloadHash, err := preparePayload(e.Payload)
	if err != nil {
		return "", nil, nil, fmt.Errorf("ledger: payload of %s: %w", e.Action, err)
	}
	at := l.now().UTC().Truncate(time.Microsecond)
	mandates := uuidStrings(e.MandateChain)
	h := hashed{
		ProjectID: bytesOf(e.ProjectID), TaskID: bytesOf(e.TaskID), AgentID: bytesOf(e.AgentID),
		Actor: []byte(e.Actor), MandateChain: make([][]byte, len(mandates)), Action: []byte(e.Action),
		PayloadHash: []byte(payloadHash), Outcome: []byte(e.Outcome), At: at,
	}
	for i, id := range mandates {
		h.MandateChain[i] = []byte(id)
	}
	before, between, after, err := material(h)
	if err != nil {
		return "", nil, nil, fmt.Errorf("ledger: hash an entry of %s: %w", e.Action, err)
	}
	return appendSQL, []any{nullable(e.OrgID), nullable(e.ProjectID), nullable(e.TaskID), nullable(e.AgentID),
		e.Actor, mandates, e.Action, payloadHash, content, e.Outcome, at, before, between, after}, &Appended{At: at}, nil
}

// material is h's canonical JSON in three parts, around its chain key and
// its previous hash, which the integrator fills in (ledger_integrate):
// Sum() = sha256(before + chain key + between + prev hash + after). It
// encodes h with one-letter stand-ins and finds each value where two
// encodings that differ only in it first differ.
func material(h hashed) (before, between, after []byte, err error) {
	enc := func(chain, prev string) []byte {
		h.ChainKey, h.PrevHash = []byte(chain), []byte(prev)
		return h.AppendCanonical(make([]byte, 0, 512))
	}
	x, y, z := enc("a", "a"), enc("b", "a"), enc("a", "b")
	i, j := firstDiff(x, y), firstDiff(x, z)
	if i < 0 || j <= i {
		return nil, nil, nil, fmt.Errorf("ledger: cannot place the chain key and previous hash in an entry's JSON")
	}
	return x[:i], x[i+1 : j], x[j+1:], nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
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
