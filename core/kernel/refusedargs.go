package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// What a refused call's entry keeps of its arguments (docs/invariants.md
// SEC-001): a refusal is logged whatever the caller sent, so what it costs
// the log must not be the caller's choice.
const (
	// maxLoggedRefusedArgs is the most argument bytes a refusal's entry
	// keeps whole (redacted, like every payload); longer ones are logged
	// by digest (argsDigest).
	maxLoggedRefusedArgs = 16 << 10
	// loggedHeadBytes is how many of their first bytes a digest keeps, so a
	// person reading the log sees what was sent.
	loggedHeadBytes = 256
)

// argsDigest is what the log keeps of arguments it does not keep whole:
// {"digest": "sha256:<hex of all the bytes>", "bytes": their number,
// "head": the first loggedHeadBytes of them as text}. The head is cut back
// to the start of a character the limit split; the ledger redacts it and
// makes any other invalid UTF-8 U+FFFD.
func argsDigest(args []byte) map[string]any {
	sum := sha256.Sum256(args)
	head := args[:min(len(args), loggedHeadBytes)]
	if len(head) < len(args) {
		for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
			if utf8.RuneStart(head[i]) {
				if !utf8.FullRune(head[i:]) {
					head = head[:i]
				}
				break
			}
		}
	}
	return map[string]any{"digest": "sha256:" + hex.EncodeToString(sum[:]), "bytes": len(args), "head": string(head)}
}

// boundRefused puts argsDigest in place of arguments longer than
// maxLoggedRefusedArgs in the entry of a call refused with err. A payload a
// tool chose itself is kept.
func boundRefused(e *ledger.Entry, err error) {
	if raw, ok := e.Payload.(json.RawMessage); ok && len(raw) > maxLoggedRefusedArgs && errs.IsRefusal(err) {
		e.Payload = argsDigest(raw)
	}
}
