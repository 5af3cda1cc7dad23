package mandate

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// Verify walks the chain from leafID up to its root and checks every link for
// a call by holder, on every call: it is never cached, because a link can be
// revoked, expire or lose its signing key between two calls. It issues one
// query whatever the depth.
//
// Refusals come in this order, each naming the link at fault (mandate_id):
//  1. ChainBroken when leafID is not a UUID or no such mandate exists
//     ("mandate X does not exist"; also when no link of the chain is in the
//     calling agent's organization), the chain is deeper than MaxDepth or has
//     no root, the root was not issued by a registered person, the people and
//     agents in it belong to more than one organization ("chain of X crosses
//     organizations"), or a link's signature does not match its contents or
//     the link widens its parent (scope, limits, delegations, expiry, depth,
//     issuer);
//  2. MandateRevoked for the first revoked link from the root: revoking a
//     link kills everything below it without marking it; then, root first,
//     MandateRevoked for a root issued by a disabled person or a link held
//     by a banned agent, AgentPaused for a link held by a paused one;
//  3. MandateRevoked for an imported link whose trusted root was revoked
//     (or re-added after the link was imported); ChainBroken when its
//     principal is unreadable;
//  4. MandateExpired for the first link whose expiry has passed;
//  5. ChainBroken when the leaf is held by someone other than holder.
func (s *Service) Verify(ctx context.Context, tx bun.IDB, leafID, holder string) (Chain, error) {
	id, ok := parseID(leafID)
	if !ok {
		return nil, errs.Mandate(errs.ChainBroken, leafID, "mandate %s does not exist", leafID)
	}
	r, err := s.loadChain(ctx, tx, id.String(), holder)
	if err != nil {
		return nil, err
	}
	chain, orgs, issuerIsHuman := r.chain, r.orgs, r.issuerIsHuman
	// Another organization's mandate answers exactly like a missing one,
	// before anything about it (revoked, expired, its holder) is said.
	if len(chain) == 0 || (r.callerOrg != "" && !orgs[r.callerOrg]) {
		return nil, errs.Mandate(errs.ChainBroken, leafID, "mandate %s does not exist", leafID)
	}
	root := chain[0]
	rid := root.ID.String()
	if len(chain) > MaxDepth+1 || root.ParentID != nil {
		return nil, errs.Mandate(errs.ChainBroken, rid, "chain of %s is deeper than %d links or has no root", leafID, MaxDepth)
	}
	if !issuerIsHuman {
		return nil, errs.Mandate(errs.ChainBroken, rid, "root mandate %s was not issued by a registered human", rid)
	}
	// Authority never crosses organizations: the person at the root and every
	// holder below share one.
	if len(orgs) != 1 {
		return nil, errs.Mandate(errs.ChainBroken, rid, "chain of %s crosses organizations", leafID)
	}
	if err := s.checkLinks(chain); err != nil {
		return nil, err
	}
	for _, m := range chain {
		if m.RevokedAt != nil {
			return nil, errs.Mandate(errs.MandateRevoked, m.ID.String(), "mandate %s in the chain was revoked", m.ID)
		}
	}
	if err := r.principalsStand(); err != nil {
		return nil, err
	}
	if err := checkTrustedRoots(ctx, tx, chain); err != nil {
		return nil, err
	}
	now := s.now()
	for _, m := range chain {
		if !m.ExpiresAt.After(now) {
			return nil, errs.Mandate(errs.MandateExpired, m.ID.String(), "mandate %s in the chain expired at %s", m.ID, canon.ISO(m.ExpiresAt))
		}
	}
	if leaf := chain.Leaf(); leaf.Holder != holder {
		return nil, errs.Mandate(errs.ChainBroken, leaf.ID.String(), "mandate %s is held by %s, not by the caller %s", leaf.ID, leaf.Holder, holder)
	}
	return chain, nil
}

// loadChain runs chainSQL, prepared (docs/benchmarks.md, "Round trips"),
// for a call by agent caller ("" for none): the links root first, the set
// of organizations of the root's issuer and of every holder, whether the
// root's issuer is a registered person, and the caller's organization. In a
// pipelined transaction whose first round trip read the chain ahead
// (ReadAhead), the first read takes those rows instead.
func (s *Service) loadChain(ctx context.Context, tx bun.IDB, leafID, caller string) (*chainRows, error) {
	if t, ok := tx.(*db.Tx); ok {
		if v, ok := t.Take(chainAhead{leafID, caller}); ok {
			return v.(*chainRows), nil
		}
	}
	h, err := db.Handle(tx)
	if err != nil {
		return nil, err
	}
	rows, err := h.QueryContext(ctx, chainSQL, s.mode, leafID, MaxDepth, caller)
	if err != nil {
		return nil, errs.Wrap(err, "load mandate chain")
	}
	defer rows.Close()
	return readChain(rows)
}

// chainAhead is the key a chain read ahead is kept under in a pipelined
// transaction: the leaf's id and the calling agent.
type chainAhead struct{ leaf, caller string }

// ReadAhead is the step that reads leafID's chain in the round trip that
// opens a pipelined transaction (kernel.Tool.MandateArg). The first Verify
// or Lineage of leafID in that transaction takes its rows instead of
// reading them again: read in the same transaction moments before, they are
// what a read would return, so Verify still decides on every call from
// rows of that call. ok is false when leafID is not a mandate id.
func (s *Service) ReadAhead(leafID, caller string) (step db.Step, ok bool) {
	id, ok := parseID(leafID)
	if !ok {
		return db.Step{}, false
	}
	key := chainAhead{id.String(), caller}
	return db.Step{SQL: chainSQL, Args: []any{key.leaf, MaxDepth, caller}, Rows: func(t *db.Tx, rows pgx.Rows) error {
		r, err := readChain(rows)
		if err == nil {
			t.Keep(key, r)
		}
		return err
	}}, true
}

// chainRows is what chainSQL returns.
type chainRows struct {
	chain          Chain
	orgs           map[string]bool
	issuerIsHuman  bool
	callerOrg      string
	holderStatus   []string // of each link's holder, root first
	issuerDisabled bool     // the root's issuer, a person, is disabled
}

// principalsStand refuses a chain that runs through a principal who was
// stopped (docs/security.md, finding 4): the root's issuer disabled, or a
// holder banned, name the link whose authority ended (mandate_revoked); a
// holder paused suspends everything under it until it is resumed
// (agent_paused). Root first, so the refusal names the highest link.
func (r *chainRows) principalsStand() error {
	for i, m := range r.chain {
		id := m.ID.String()
		if i == 0 && r.issuerDisabled {
			return errs.Mandate(errs.MandateRevoked, id, "mandate %s was issued by %s, who is disabled", id, m.Issuer)
		}
		switch r.holderStatus[i] {
		case "banned":
			return errs.Mandate(errs.MandateRevoked, id, "mandate %s is held by %s, which is banned", id, m.Holder)
		case "paused":
			return errs.Mandate(errs.AgentPaused, id, "mandate %s is held by %s, which is paused; it and what was delegated under it work again when a person resumes it", id, m.Holder)
		}
	}
	return nil
}

// readChain reads chainSQL's rows.
func readChain(rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}) (*chainRows, error) {
	r := &chainRows{orgs: map[string]bool{}}
	for rows.Next() {
		var human, disabled bool
		var issuerOrg, holderOrg, status string
		m, err := scanMandate(rows, &human, &issuerOrg, &holderOrg, &r.callerOrg, &status, &disabled)
		if err != nil {
			return nil, errs.Wrap(err, "read mandate chain")
		}
		if len(r.chain) == 0 { // the root comes first
			r.issuerIsHuman, r.issuerDisabled = human, disabled
			r.orgs[issuerOrg] = true
		}
		r.orgs[holderOrg] = true
		r.chain = append(r.chain, m)
		r.holderStatus = append(r.holderStatus, status)
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "read mandate chain")
	}
	return r, nil
}

// checkLinks checks each link's signature and that each child only narrows
// its parent. It returns ChainBroken naming the first bad link.
func (s *Service) checkLinks(chain Chain) error {
	for i, m := range chain {
		mid := m.ID.String()
		payload, err := m.Payload()
		if err != nil || !s.keys.VerifySignature(payload, m.Signature) {
			return errs.Mandate(errs.ChainBroken, mid, "signature of mandate %s does not match its contents", mid)
		}
		if i == 0 {
			if m.Depth != 0 {
				return errs.Mandate(errs.ChainBroken, mid, "root mandate %s has depth %d", mid, m.Depth)
			}
			continue
		}
		if problem := narrows(m, chain[i-1]); problem != "" {
			return errs.Mandate(errs.ChainBroken, mid, "mandate %s %s", mid, problem)
		}
	}
	return nil
}

// narrows returns what is wrong with child as a child of p, or "".
func narrows(child, p *Mandate) string {
	switch {
	case child.ParentID == nil || *child.ParentID != p.ID:
		return "is not linked to its parent"
	case child.IssuerKind != IssuerAgent || child.Issuer != p.Holder:
		return "was issued by " + child.Issuer + ", not by the parent's holder " + p.Holder
	case child.Depth != p.Depth+1:
		return "has the wrong depth"
	case len(Uncovered(child.Scope, p.Scope)) > 0:
		return "has a wider scope than its parent"
	case higherLimit(child.Limits, p.Limits):
		return "has a higher limit than its parent"
	case child.DelegationsLeft >= p.DelegationsLeft:
		return "does not have fewer delegations than its parent"
	case child.ExpiresAt.After(p.ExpiresAt):
		return "expires after its parent"
	}
	return ""
}

func higherLimit(child, parent map[string]float64) bool {
	for k, v := range child {
		if ceiling, ok := parent[k]; ok && v > ceiling {
			return true
		}
	}
	return false
}

// Lineage returns the links from the root down to mandate id, unverified:
// for the log (an entry's mandate_chain) and for checks such as "is any link
// of this chain revoked". It returns NotFound for an unknown id. Authority is
// only ever decided by Verify.
func (s *Service) Lineage(ctx context.Context, tx bun.IDB, id string) (Chain, error) {
	if _, ok := parseID(id); !ok {
		return nil, errs.E(errs.NotFound, "mandate %s does not exist", id)
	}
	r, err := s.loadChain(ctx, tx, id, "")
	if err != nil {
		return nil, err
	}
	chain := r.chain
	if len(chain) == 0 {
		return nil, errs.E(errs.NotFound, "mandate %s does not exist", id)
	}
	return chain, nil
}

// Revoked reports whether any link of c is revoked.
func (c Chain) Revoked() bool {
	for _, m := range c {
		if m.RevokedAt != nil {
			return true
		}
	}
	return false
}

// checkTrustedRoots refuses a chain with an imported link whose trusted
// root no longer stands for it: the root must be live, in the holder's
// organization, stand for the same person, and have been active since
// before the link was imported. It costs one query, and only for chains
// that hold imported links.
func checkTrustedRoots(ctx context.Context, tx bun.IDB, chain Chain) error {
	for _, m := range chain {
		if m.Format == FormatPact {
			continue
		}
		id := m.ID.String()
		if m.IssuerPrincipal == nil {
			return errs.Mandate(errs.ChainBroken, id, "imported mandate %s names no issuing key", id)
		}
		principal, err := b64urlDecode(*m.IssuerPrincipal)
		if err != nil || len(principal) != 32 {
			return errs.Mandate(errs.ChainBroken, id, "imported mandate %s names an unreadable issuing key", id)
		}
		var live bool
		err = tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM trusted_roots tr JOIN agents a ON a.id = ?
			WHERE tr.principal = ? AND tr.revoked_at IS NULL AND tr.org_id = a.org_id AND tr.human = ?
			  AND ? >= tr.active_since)`, m.Holder, principal, m.Issuer, m.CreatedAt).Scan(ctx, &live)
		if err != nil {
			return errs.Wrap(err, "check trusted root")
		}
		if !live {
			return errs.Mandate(errs.MandateRevoked, id, "mandate %s was imported under key %s, no longer a trusted root", id, *m.IssuerPrincipal)
		}
	}
	return nil
}
