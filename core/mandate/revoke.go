package mandate

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// RevokeEvent says what a revocation reached.
type RevokeEvent struct {
	// Revoked is the mandate a person or agent revoked.
	Revoked uuid.UUID
	// Subtree is Revoked itself and every mandate delegated under it, revoked
	// or not, nearest first. Only Revoked is marked; the others die because
	// every chain through them now has a revoked link.
	Subtree []uuid.UUID
}

// RevokeReport is what a revoke hook did, handed back to whoever revoked.
type RevokeReport struct {
	// TasksStopped are the open tasks the hook canceled, those canceled by
	// the revocations it cascaded to included.
	TasksStopped []string
}

// Revocation is what [Service.RevokeSubtree] did: what it reached and what
// its hooks reported, merged.
type Revocation struct {
	RevokeEvent
	RevokeReport
}

// RevokeHook reacts to a revocation inside the revoking transaction, for
// instance by cancelling the open tasks that hang on the subtree or by
// publishing the outside credential ids minted for it, and reports what it
// did. An error aborts the revocation: the caller's transaction rolls back.
type RevokeHook func(ctx context.Context, tx bun.IDB, ev RevokeEvent) (RevokeReport, error)

// OnRevoke adds h to the hooks [Service.RevokeSubtree] runs, after the ones
// already added. Call it at start-up only, before the service serves: it is
// not safe to call concurrently with anything else.
func (s *Service) OnRevoke(h RevokeHook) { s.hooks = append(s.hooks, h) }

// RevokeSubtree revokes the mandate id (if it is not revoked already: a
// revocation is never undone or moved), finds its subtree with one recursive
// query, and runs the revoke hooks in registration order within tx. It
// returns NotFound "mandate X does not exist" for an unknown id, and a hook's
// error as is (refusals) or as Internal. It checks no authority: callers
// decide who may revoke what. The hooks' reports come back merged in the
// Revocation, each task once.
func (s *Service) RevokeSubtree(ctx context.Context, tx bun.IDB, id uuid.UUID) (*Revocation, error) {
	// Mark first, then find the subtree: the UPDATE waits for writers that
	// hold the chain (Hold), so the subtree read after it also sees the
	// mandates they delegated (SEC-013).
	if _, err := tx.ExecContext(ctx, revokeSQL, micro(s.now()), id.String()); err != nil {
		return nil, errs.Wrap(err, "revoke mandate")
	}
	sub, err := subtree(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if len(sub) == 0 {
		return nil, errs.E(errs.NotFound, "mandate %s does not exist", id)
	}
	ev := &Revocation{RevokeEvent: RevokeEvent{Revoked: id, Subtree: sub}}
	for _, h := range s.hooks {
		r, err := h(ctx, tx, ev.RevokeEvent)
		if err != nil {
			return nil, errs.Wrap(err, "revoke hook")
		}
		for _, t := range r.TasksStopped {
			if !slices.Contains(ev.TasksStopped, t) {
				ev.TasksStopped = append(ev.TasksStopped, t)
			}
		}
	}
	return ev, nil
}

// subtree returns id and every mandate delegated under it, nearest first.
func subtree(ctx context.Context, tx bun.IDB, id uuid.UUID) ([]uuid.UUID, error) {
	rows, err := tx.QueryContext(ctx, subtreeSQL, id.String(), MaxDepth)
	if err != nil {
		return nil, errs.Wrap(err, "find mandate subtree")
	}
	defer rows.Close()
	var out []uuid.UUID
	for rows.Next() {
		var m uuid.UUID
		if err := rows.Scan(&m); err != nil {
			return nil, errs.Wrap(err, "read mandate subtree")
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "read mandate subtree")
	}
	return out, nil
}

// RevokeHeldBy revokes every live mandate holder holds, each with its
// subtree and the revoke hooks (RevokeSubtree), nearest the root first, and
// returns the revocations, in tx. It is what stopping an agent for good
// (banning or replacing it) does to its authority.
func (s *Service) RevokeHeldBy(ctx context.Context, tx bun.IDB, holder string) ([]*Revocation, error) {
	return s.revokeAll(ctx, tx, "the mandates agent "+holder+" holds",
		`SELECT id FROM mandates WHERE holder = ? AND revoked_at IS NULL ORDER BY depth, created_at, id`, holder)
}

// RevokeIssuedBy revokes every live root mandate person issued, each with
// its subtree and the revoke hooks, in tx: what disabling a person does to
// the authority they gave.
func (s *Service) RevokeIssuedBy(ctx context.Context, tx bun.IDB, person string) ([]*Revocation, error) {
	return s.revokeAll(ctx, tx, "the mandates "+person+" issued",
		`SELECT id FROM mandates WHERE issuer_kind = 'human' AND issuer = ? AND revoked_at IS NULL
		ORDER BY created_at, id`, person)
}

// revokeAll revokes, with RevokeSubtree, each mandate query (one argument)
// returns; what names them in errors.
func (s *Service) revokeAll(ctx context.Context, tx bun.IDB, what, query string, arg any) ([]*Revocation, error) {
	rows, err := tx.QueryContext(ctx, query, arg)
	if err != nil {
		return nil, errs.Wrap(err, "find "+what)
	}
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, errs.Wrap(err, "read "+what)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "read "+what)
	}
	var out []*Revocation
	for _, id := range ids {
		ev, err := s.RevokeSubtree(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
