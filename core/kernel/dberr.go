package kernel

import (
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// Public is what a caller may see of err at a boundary (MCP, the Admin API,
// plain HTTP routes): errs.Public after db.Fault, so a call the database
// failed (PostgreSQL restarting, the pool exhausted, a statement past its
// deadline) is answered unavailable with what to do, not internal. Each
// boundary calls it once, where it would call errs.Public.
func Public(err error) *errs.Error {
	return errs.Public(db.Fault(err))
}
