package board

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/pactboard/pact/sdk/errs"
)

// A task's body and result are read whole by every agent that claims,
// lists or inherits the task, and kept in the log for good: one caller
// must not make them megabytes (docs/security.md, "7. Caps").
const (
	// MaxTaskBody is the longest task body, in characters; a person's edit
	// of a body has the same bound (editIn).
	MaxTaskBody = 100_000
	// MaxTaskResult is the longest result of a report, in characters of
	// its JSON (text is counted with its quotes and escapes).
	MaxTaskResult = 100_000
)

// checkTaskBody refuses a body longer than MaxTaskBody.
func checkTaskBody(body string) error {
	if n := utf8.RuneCountInString(body); n > MaxTaskBody {
		return errs.E(errs.InvalidRequest, "body is at most %d characters (this one has %d); put long material in a note (pact_note) and refer to it",
			MaxTaskBody, n)
	}
	return nil
}

// checkTaskResult refuses a result longer than MaxTaskResult.
func checkTaskResult(result json.RawMessage) error {
	if n := utf8.RuneCount(result); n > MaxTaskResult {
		return errs.E(errs.InvalidRequest, "result is at most %d characters of JSON (this one has %d); summarize it, and put long material in a note (pact_note) or the repository",
			MaxTaskResult, n)
	}
	return nil
}
