package notify

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// person is the acting person of an admin operation.
type person = identity.Person

// loadPerson loads person by and checks they hold at least role min
// (identity.RequireActingPerson). It returns the person even when refusing, so
// the refusal is logged in their organization. Refusal: forbidden.
func loadPerson(ctx context.Context, q bun.IDB, by, min string) (*person, error) {
	return identity.RequireActingPerson(ctx, q, by, identity.Role(min))
}

// act runs an admin operation as person by (at least role min), logged as
// action. before runs first, outside any transaction (plugin calls go
// there); fn runs in the transaction that also appends the log entry, with
// the person checked again. A refusal from either is logged in its own
// transaction and returned; other errors are returned as they are.
func (s *Service) act(ctx context.Context, by, min, action string, payload map[string]any,
	before func(ctx context.Context, p *person) error,
	fn func(ctx context.Context, tx bun.Tx, p *person, e *ledger.Entry) error) error {
	if by == "" {
		return errs.E(errs.Forbidden, "name the person acting") // no one to log it for
	}
	e := ledger.Entry{Actor: "human:" + by, Action: action, Payload: payload}
	p, err := loadPerson(ctx, s.db, by, min)
	if p != nil {
		e.OrgID = p.OrgID
	}
	if err == nil && before != nil {
		err = before(ctx, p)
	}
	if err != nil {
		if errs.IsRefusal(err) {
			return s.log.RecordRefusal(ctx, s.db, e, err)
		}
		return err
	}
	return s.log.Record(ctx, s.db, e, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		p, err := loadPerson(ctx, tx, by, min)
		if err != nil {
			return err
		}
		return fn(ctx, tx, p, e)
	})
}
