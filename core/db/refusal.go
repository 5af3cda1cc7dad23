package db

import (
	"fmt"

	"github.com/pactboard/pact/sdk/errs"
)

// Refusal turns the database's refusals of a write into the board's codes,
// for the rare race a service's pre-check could not see; what names the
// thing written in the message. Any other error comes back wrapped with
// what, so the log says which write failed; nil stays nil.
func Refusal(err error, what string) error {
	if err == nil {
		return nil
	}
	switch PgCode(err) {
	case UniqueViolation:
		return errs.E(errs.IDTaken, "%s is already taken", what)
	case ForeignKeyViolation:
		return errs.E(errs.InvalidRequest, "%s names something in another organization or something missing", what)
	case CheckViolation:
		return errs.E(errs.InvalidRequest, "%s is out of range", what)
	}
	return fmt.Errorf("write %s: %w", what, err)
}
