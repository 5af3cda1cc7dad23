package logformat

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Format names the bundle format in its header line.
const Format = "pact-log-bundle/1"

// A bundle is JSON Lines (docs/log-checkpoints.md, "Bundles"): a header,
// the board's verifier keys, every checkpoint of the chains it holds, every
// entry of those chains, chain by chain in order, and a trailer with the
// counts, so a cut-off bundle is told from a whole one. Each line is one
// Record; Kind says which of its fields are set.
const (
	KindHeader     = "header"
	KindKey        = "key"
	KindCheckpoint = "checkpoint"
	KindEntry      = "entry"
	KindEnd        = "end"
)

// Record is one line of a bundle.
type Record struct {
	Kind string `json:"kind"`

	// header
	Format     string `json:"format,omitempty"`
	Scope      string `json:"scope,omitempty"` // "org:<id>" or "project:<id>"
	ExportedAt string `json:"exported_at,omitempty"`

	// key
	VerifierKey string `json:"verifier_key,omitempty"`

	// checkpoint: the signed note; entry: its chain
	ChainKey string `json:"chain_key,omitempty"`
	Note     string `json:"note,omitempty"`

	*Entry

	// end
	Entries int64 `json:"entries,omitempty"`
	Chains  int64 `json:"chains,omitempty"`
}

// Entry is one log entry as a bundle holds it: every field its hash covers,
// its place in its chain, and its payload unless that was erased.
type Entry struct {
	Position     int64           `json:"position"` // 1 for a chain's first entry
	ID           int64           `json:"id"`
	OrgID        string          `json:"org_id"`
	ProjectID    *string         `json:"project_id"`
	TaskID       *string         `json:"task_id"`
	AgentID      *string         `json:"agent_id"`
	Actor        string          `json:"actor"`
	MandateChain []string        `json:"mandate_chain"`
	Action       string          `json:"action"`
	PayloadHash  string          `json:"payload_hash"`
	Outcome      string          `json:"outcome"`
	At           string          `json:"at"` // as the hash covers it (canon.ISO)
	PrevHash     string          `json:"prev_hash"`
	Hash         string          `json:"hash"`
	Payload      json.RawMessage `json:"payload,omitempty"`
	Erased       bool            `json:"erased,omitempty"`
}

// Writer writes a bundle's lines.
type Writer struct {
	w *bufio.Writer
}

// NewWriter writes a bundle to w; Flush ends it.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 1<<16)} }

// Write writes one record as a line.
func (w *Writer) Write(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("bundle: %s line: %w", r.Kind, err)
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return nil
}

// Flush writes what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }
