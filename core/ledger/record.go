package ledger

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// Record runs fn in a transaction and logs it. fn may fill in e (the project,
// the mandate chain, the payload) as it learns them.
//
//   - fn returns nil: e is appended with outcome "ok" in the same transaction,
//     so the change and its entry commit together or not at all.
//   - fn returns a refusal (errs.IsRefusal): the transaction rolls back, then
//     e is appended with the refusal's code in a transaction of its own, and
//     the refusal is returned. A refused operation changes nothing else.
//   - any other error is returned as it is, and nothing is logged.
func (l *Log) Record(ctx context.Context, d *db.DB, e Entry, fn func(ctx context.Context, tx bun.Tx, e *Entry) error) error {
	err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := fn(ctx, tx, &e); err != nil {
			return err
		}
		e.Outcome = OK
		_, err := l.Append(ctx, tx, e)
		return err
	})
	if err == nil {
		l.Committed()
	}
	if err == nil || !errs.IsRefusal(err) {
		return err
	}
	return l.RecordRefusal(ctx, d, e, err)
}

// RecordPipelined is Record in two round trips beside fn's own: the
// transaction's BEGIN travels with first, and the entry's append with its
// COMMIT (db.Tx). The outcomes are Record's.
func (l *Log) RecordPipelined(ctx context.Context, d *db.DB, e Entry, first []db.Step,
	fn func(ctx context.Context, tx *db.Tx, e *Entry) error) error {
	err := func() error {
		tx, err := d.Begin(ctx, first...)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		if err := fn(ctx, tx, &e); err != nil {
			return err
		}
		e.Outcome = OK
		step, _, err := l.AppendStep(e)
		if err != nil {
			return err
		}
		return tx.Commit(ctx, step)
	}()
	if err == nil {
		l.Committed()
	}
	if err == nil || !errs.IsRefusal(err) {
		return err
	}
	return l.RecordRefusal(ctx, d, e, err)
}

// RecordRefusal appends e with the refusal's code in its own transaction and
// returns the refusal. The entry keeps the project and agent it names only
// when they exist in the entry's organization: a refusal that names another
// organization's project is logged in the caller's organization alone.
func (l *Log) RecordRefusal(ctx context.Context, d *db.DB, e Entry, refusal error) error {
	e.Outcome = string(errs.CodeOf(refusal))
	err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := anchor(ctx, tx, &e); err != nil {
			return err
		}
		_, err := l.Append(ctx, tx, e)
		return err
	})
	if err != nil {
		return fmt.Errorf("log the refusal %v: %w", refusal, err)
	}
	l.Committed()
	return refusal
}

// anchor drops references a refused entry may not keep.
func anchor(ctx context.Context, tx bun.IDB, e *Entry) error {
	var projectOrg, agentOrg *string
	err := tx.NewRaw(`SELECT (SELECT org_id FROM projects WHERE id = ?), (SELECT org_id FROM agents WHERE id = ?)`,
		e.ProjectID, e.AgentID).Scan(ctx, &projectOrg, &agentOrg)
	if err != nil {
		return fmt.Errorf("ledger: anchor a refused %s: %w", e.Action, err)
	}
	if e.OrgID == "" && agentOrg != nil {
		e.OrgID = *agentOrg
	}
	if agentOrg == nil || (e.OrgID != "" && *agentOrg != e.OrgID) {
		e.AgentID = ""
	}
	if projectOrg == nil || (e.OrgID != "" && *projectOrg != e.OrgID) {
		e.ProjectID, e.TaskID = "", ""
	}
	return nil
}
