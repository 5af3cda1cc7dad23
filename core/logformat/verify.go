package logformat

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// Options shape Verify.
type Options struct {
	// Keys are the verifier keys the reader trusts (the board's, kept from
	// /.well-known/pact-log/keys). Empty: the bundle's own keys, which
	// proves only that the bundle agrees with itself.
	Keys []string
	// Saved are checkpoints the reader kept from before, as signed notes by
	// chain key; the bundle must agree with each one.
	Saved []SavedCheckpoint
	// Progress, when set, is told of every 10,000 entries checked.
	Progress func(entries int64)
}

// SavedCheckpoint is a signed checkpoint kept from before.
type SavedCheckpoint struct {
	ChainKey string `json:"chain_key"`
	Note     string `json:"note"`
}

// Report is what Verify found.
type Report struct {
	OK          bool   `json:"ok"`
	Scope       string `json:"scope"`
	Entries     int64  `json:"entries"`
	Erased      int64  `json:"erased_payloads"`
	Chains      int    `json:"chains"`
	Checkpoints int    `json:"checkpoints"`
	Saved       int    `json:"saved_checkpoints"`
	KeysPinned  bool   `json:"keys_pinned"`
	// Unchecked are chains a saved checkpoint names that the bundle does
	// not hold (a bundle of one project, checkpoints of several).
	Unchecked []string  `json:"unchecked_chains,omitempty"`
	Problems  []Problem `json:"problems,omitempty"`
}

// Problem is one thing that is wrong, at the first entry where it shows.
type Problem struct {
	ChainKey string `json:"chain_key,omitempty"`
	Position int64  `json:"position,omitempty"`
	EntryID  int64  `json:"entry_id,omitempty"`
	Reason   string `json:"reason"`
}

// maxProblems bounds a report: a rewritten chain breaks at every entry
// after the rewrite, and the first says where.
const maxProblems = 100

// Verify checks a bundle read from r, in one pass and constant memory
// (beyond the checkpoints, a few per chain): every link and hash, every
// payload against its hash (an erased one is allowed), every checkpoint's
// signature and that the chain agrees with it, and the saved checkpoints.
// The error is for a bundle that cannot be read at all; what is wrong with
// a readable one is in the report.
func Verify(r io.Reader, o Options) (*Report, error) {
	v, err := verify(r, o)
	if err != nil {
		return nil, err
	}
	return v.rep, nil
}

// work counts what a verification did, for the tests that hold it linear
// in the bundle's lines (export_test.go): the checkpoint signatures it
// verified (once per distinct note), and each time it held a checkpoint
// against an entry, a chain's end or the chain's absence.
type work struct {
	signatures, comparisons int64
}

// verify is Verify, returning the verifier with its work counted.
func verify(r io.Reader, o Options) (*verifier, error) {
	v := &verifier{rep: &Report{}, o: o, cps: map[string][]check{}, done: map[string]bool{}, opened: map[string]opened{}}
	if err := decodeLines(r, v.record); err != nil {
		return nil, err
	}
	v.endChain()
	// What is left of cps are the checkpoints of chains the bundle holds no
	// entry of: a saved one leaves its chain unchecked (a bundle of one
	// project, checkpoints of several); one of the bundle's own says the
	// chain's entries are missing.
	for _, chain := range slices.Sorted(maps.Keys(v.cps)) {
		unchecked, missing := false, false
		for _, c := range v.cps[chain] {
			v.work.comparisons++
			if c.saved {
				unchecked = true
			} else if !missing {
				missing = true
				v.problem(Problem{ChainKey: chain, Reason: fmt.Sprintf(
					"a checkpoint says the chain holds %d entries; the bundle holds none: entries are missing", c.Size)})
			}
		}
		if unchecked {
			v.rep.Unchecked = append(v.rep.Unchecked, chain)
		}
	}
	if !v.ended {
		v.problem(Problem{Reason: "the bundle ends before its trailer: it was cut off"})
	}
	v.rep.Chains = len(v.done)
	v.rep.OK = len(v.rep.Problems) == 0
	return v, nil
}

// opened is a signed note's verification.
type opened struct {
	c   Checkpoint
	err error
}

// check is a checkpoint a chain must agree with.
type check struct {
	Checkpoint
	saved bool
}

// verifier is Verify's state between lines. Its work is linear in the
// bundle's lines (SEC-021): each checkpoint is filed once, sorted with its
// chain's others once when the chain's entries begin, and held once against
// the entry at its size or the chain's end, whichever comes first; a chain
// met again later is not checked against them again.
type verifier struct {
	rep     *Report
	o       Options
	trusted note.Verifiers
	header  bool
	ended   bool
	work    work

	cps  map[string][]check // by chain key, in arrival order, of chains not yet begun
	done map[string]bool    // chains begun
	list []check            // the chain being read's checkpoints, in size order
	next int                // list[next] is the first not yet held against the chain
	// opened holds each distinct signed note's verification: the keys do
	// not change once read, so a repeated note verifies as it did the
	// first time, and its signature is checked once.
	opened map[string]opened

	chain   string
	pos     int64
	prev    []byte
	agreed  int64 // the size of the last saved checkpoint the chain agreed with
	afterID int64 // the id of the entry after it
}

// problem notes p, once: a checkpoint repeated k times that disagrees is
// one problem, not k.
func (v *verifier) problem(p Problem) {
	if n := len(v.rep.Problems); n > 0 && v.rep.Problems[n-1] == p {
		return
	}
	if len(v.rep.Problems) < maxProblems {
		v.rep.Problems = append(v.rep.Problems, p)
	}
}

func (v *verifier) record(d *decoded, line int64) error {
	rec := &d.rec
	if !v.header && rec.Kind != KindHeader {
		return fmt.Errorf("bundle line %d: a bundle starts with its header", line)
	}
	switch rec.Kind {
	case KindHeader:
		if v.header || rec.Format != Format {
			return fmt.Errorf("bundle line %d: not a %s header", line, Format)
		}
		v.header, v.rep.Scope = true, rec.Scope
	case KindKey:
		return v.key(rec.VerifierKey, line)
	case KindCheckpoint:
		return v.checkpoint(rec.ChainKey, rec.Note, false)
	case KindEntry:
		if rec.Entry == nil {
			return fmt.Errorf("bundle line %d: an entry line without an entry", line)
		}
		v.entry(rec.ChainKey, rec.Entry, d.reason)
	case KindEnd:
		v.endChain()
		v.ended = true
		if rec.Entries != v.rep.Entries {
			v.problem(Problem{Reason: fmt.Sprintf("the trailer counts %d entries, the bundle holds %d", rec.Entries, v.rep.Entries)})
		}
	default:
		return fmt.Errorf("bundle line %d: unknown kind %q", line, rec.Kind)
	}
	return nil
}

// key takes the bundle's verifier keys, or, when the reader gave its own,
// those instead; the saved checkpoints are read once the keys are known.
func (v *verifier) key(vkey string, line int64) error {
	if v.trusted != nil {
		return nil
	}
	keys := v.o.Keys
	v.rep.KeysPinned = len(keys) > 0
	if !v.rep.KeysPinned {
		keys = []string{vkey}
	}
	trusted, err := Verifiers(keys...)
	if err != nil {
		return fmt.Errorf("bundle line %d: %w", line, err)
	}
	v.trusted = trusted
	for _, s := range v.o.Saved {
		if err := v.checkpoint(s.ChainKey, s.Note, true); err != nil {
			return err
		}
	}
	return nil
}

// checkpoint verifies a signed checkpoint and files it under its chain. A
// bundle lists its checkpoints before its entries (log-export writes them
// so): one of a chain whose entries have begun is reported, not checked.
func (v *verifier) checkpoint(chain, signed string, saved bool) error {
	if v.trusted == nil {
		return fmt.Errorf("bundle: a checkpoint before any key")
	}
	if saved {
		v.rep.Saved++
	} else {
		v.rep.Checkpoints++
	}
	o, seen := v.opened[signed]
	if !seen {
		v.work.signatures++
		o.c, o.err = Open(signed, v.trusted)
		v.opened[signed] = o
	}
	c, err := o.c, o.err
	if err != nil {
		v.problem(Problem{ChainKey: chain, Reason: fmt.Sprintf("a %s's signature does not verify: %v", kindOf(saved), err)})
		return nil
	}
	if v.done[chain] {
		v.problem(Problem{ChainKey: chain, Reason: fmt.Sprintf("a %s of size %d comes after the chain's entries, so it was not checked: "+
			"a bundle lists its keys and checkpoints before its entries", kindOf(saved), c.Size)})
		return nil
	}
	v.cps[chain] = append(v.cps[chain], check{c, saved})
	return nil
}

func kindOf(saved bool) string {
	if saved {
		return "saved checkpoint"
	}
	return "checkpoint"
}

// entry checks one entry against the one before it, its hash, its payload
// and the checkpoints at its position.
func (v *verifier) entry(chain string, e *Entry, contents string) {
	if chain != v.chain {
		v.endChain()
		if v.done[chain] {
			v.problem(Problem{ChainKey: chain, EntryID: e.ID, Reason: "the chain's entries are not together"})
		}
		v.chain, v.pos, v.prev, v.agreed, v.afterID = chain, 0, append(v.prev[:0], Genesis...), 0, 0
		// A chain met again was held against its checkpoints already.
		v.list, v.next = nil, 0
		if !v.done[chain] {
			v.list = v.cps[chain]
			delete(v.cps, chain)
			slices.SortStableFunc(v.list, func(a, b check) int { return cmp.Compare(a.Size, b.Size) })
		}
		v.done[chain] = true
	}
	v.pos++
	v.rep.Entries++
	if v.o.Progress != nil && v.rep.Entries%10000 == 0 {
		v.o.Progress(v.rep.Entries)
	}
	if v.agreed == v.pos-1 {
		v.afterID = e.ID
	}
	at := Problem{ChainKey: chain, Position: v.pos, EntryID: e.ID}
	if e.Position != v.pos {
		at.Reason = fmt.Sprintf("the entry says it is at position %d", e.Position)
		v.problem(at)
	}
	if e.PrevHash != string(v.prev) {
		at.Reason = "prev_hash does not match the previous entry"
		v.problem(at)
	}
	if e.Erased {
		v.rep.Erased++
	}
	if contents != "" {
		at.Reason = contents
		v.problem(at)
	}
	v.prev = append(v.prev[:0], e.Hash...)
	for v.next < len(v.list) && v.list[v.next].Size == v.pos {
		v.work.comparisons++
		v.agree(v.list[v.next], e)
		v.next++
	}
}

// agree checks that the chain's entry at c's size has c's head.
func (v *verifier) agree(c check, e *Entry) {
	if c.Head == e.Hash {
		if c.saved {
			v.agreed = c.Size
		}
		return
	}
	p := Problem{ChainKey: v.chain, Position: v.pos, EntryID: e.ID}
	if c.saved {
		where := fmt.Sprintf("the first entry that differs is entry %d (position %d)", v.afterID, v.agreed+1)
		if v.agreed+1 < c.Size {
			where = fmt.Sprintf("the first entry that differs is between position %d (entry %d) and position %d (entry %d): the saved checkpoints agree up to position %d",
				v.agreed+1, v.afterID, c.Size, e.ID, v.agreed)
		}
		p.Reason = fmt.Sprintf("rewritten: a checkpoint you kept (signed %s) says the chain's entry %d has hash %s, the bundle's has %s; %s",
			c.Time.Format(time.RFC3339), c.Size, c.Head, e.Hash, where)
	} else {
		p.Reason = fmt.Sprintf("the bundle's checkpoint of size %d says hash %s, the chain has %s", c.Size, c.Head, e.Hash)
	}
	v.problem(p)
}

// endChain checks that no checkpoint claims more entries than the chain
// the bundle holds.
func (v *verifier) endChain() {
	if v.chain == "" {
		return
	}
	for _, c := range v.list[v.next:] {
		v.work.comparisons++
		v.problem(Problem{ChainKey: v.chain, Position: v.pos, Reason: fmt.Sprintf(
			"a %s says the chain holds %d entries; the bundle holds %d: entries are missing", kindOf(c.saved), c.Size, v.pos)})
	}
	v.chain, v.list, v.next = "", nil, 0
}
