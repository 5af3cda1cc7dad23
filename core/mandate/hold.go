package mandate

import (
	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// holdChainSQL locks every link of a chain FOR SHARE, root first (the
// order RevokeHeldBy revokes in, so the two cannot deadlock), and reads
// whether each is revoked now. FOR SHARE conflicts with the UPDATE that
// revokes a link: a revocation that committed first is seen here, and one
// that comes later waits for the writer's commit, so its revoke hook then
// sees the work the writer created.
const holdChainSQL = `SELECT id::text, revoked_at IS NOT NULL FROM mandates
	WHERE id = ANY($1::uuid[]) ORDER BY depth FOR SHARE`

// Hold keeps a verified chain alive until the transaction ends, for a write
// that creates work under it (a task posted, a task claimed). Verify reads
// the chain without locking it, so a revocation committing between that
// read and the write would otherwise leave the work under a revoked
// mandate, out of reach of the revoke hooks that ran before it existed
// (docs/invariants.md SEC-013). Run Step in the write's transaction, then
// Err.
type Hold struct {
	chain   Chain
	revoked string
}

// HoldChain returns the Hold of chain, to run in the transaction that
// verified it.
func HoldChain(chain Chain) *Hold { return &Hold{chain: chain} }

// Step is the statement that locks the links and reads their revocations;
// it can share a pipelined round trip with the write it guards.
func (h *Hold) Step() db.Step {
	return db.Step{SQL: holdChainSQL, Args: []any{h.ids()}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		for rows.Next() {
			var id string
			var revoked bool
			if err := rows.Scan(&id, &revoked); err != nil {
				return err
			}
			if revoked && h.revoked == "" {
				h.revoked = id
			}
		}
		return rows.Err()
	}}
}

// ids are the chain's links, spelled for a uuid[] parameter.
func (h *Hold) ids() []string {
	ids := make([]string, len(h.chain))
	for i, m := range h.chain {
		ids[i] = m.ID.String()
	}
	return ids
}

// Err is MandateRevoked naming the first revoked link from the root, once
// Step ran, or nil when every link is alive and now held.
func (h *Hold) Err() error {
	if h.revoked == "" {
		return nil
	}
	return errs.Mandate(errs.MandateRevoked, h.revoked, "mandate %s in the chain was revoked", h.revoked)
}
