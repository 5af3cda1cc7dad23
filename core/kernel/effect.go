package kernel

import "fmt"

// Effect is what a tool does to the board beside the log entry every call
// writes. MCP clients read it as the tool's annotations (readOnlyHint,
// destructiveHint: docs/mcp-tools.md, "Annotations") to decide, for
// instance, whether to ask a person before a call. Every tool declares one
// (Tools.Add refuses a tool without), next to its title.
type Effect int

// The zero Effect is undeclared, which Tools.Add refuses.
const (
	// Reads changes nothing the caller or anyone else would see as a
	// change: the board's own bookkeeping (a read mark, a waiting agent's
	// presence) is not a change (docs/mcp-tools.md lists it).
	Reads Effect = iota + 1
	// Adds only adds: a task, a message, a note's new version (the old ones
	// stay), a pact; nothing that existed changes.
	Adds
	// Updates changes or ends what exists: a claim, a report, a revocation,
	// a zone rewritten. MCP calls such a tool destructive.
	Updates
)

// String is the effect's name in the documents.
func (e Effect) String() string {
	switch e {
	case Reads:
		return "reads"
	case Adds:
		return "adds"
	case Updates:
		return "updates"
	}
	return fmt.Sprintf("Effect(%d)", int(e))
}

// Hints are a tool's MCP annotations, as its registration declares them.
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// Hints derives the tool's annotations from its Effect and Idempotent.
// No board tool reaches outside the board (OpenWorld is false): the
// notifications a call may cause are the board's, sent by its workers. A
// tool that only reads has no effect to repeat, so it is idempotent.
func (t *Tool) Hints() Hints {
	return Hints{ReadOnly: t.Effect == Reads, Destructive: t.Effect == Updates,
		Idempotent: t.Effect == Reads || t.Idempotent}
}
