package mandate

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// Options tunes a [Service]. The zero value is the production setting.
type Options struct {
	// Now is the clock for expiry and revocation times; nil is time.Now.
	Now func() time.Time
	// Rand is where new mandate ids come from; nil is crypto/rand. It must be
	// safe for concurrent use.
	Rand io.Reader
	// Statements is the database's statement mode (db.StatementMode);
	// empty means prepared.
	Statements string
}

// Service issues, verifies, spends against and revokes mandates. Every method
// works inside the caller's transaction (tx), so a mandate and the log entry
// that records it commit together. A Service is safe for concurrent use once
// its revoke hooks are registered.
type Service struct {
	mode  pgx.QueryExecMode // of the chain's statement
	keys  *Keyring
	now   func() time.Time
	rand  io.Reader
	hooks []RevokeHook
}

// NewService returns a Service that signs and verifies with keys. opts may be
// nil.
func NewService(keys *Keyring, opts *Options) *Service {
	s := &Service{keys: keys, now: time.Now, rand: rand.Reader, mode: pgx.QueryExecModeCacheStatement}
	if opts != nil {
		if m, err := db.StatementMode(opts.Statements); err == nil {
			s.mode = m
		}
	}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	if opts != nil && opts.Rand != nil {
		s.rand = opts.Rand
	}
	return s
}

// Keys returns the keyring the service signs with, for the JWKS route and
// credential export.
func (s *Service) Keys() *Keyring { return s.keys }

// RootInput is a root mandate a person issues to an agent.
type RootInput struct {
	Issuer      string // human id
	Holder      string // agent id
	Scope       []string
	Limits      map[string]float64
	Delegations int // how many levels the holder may delegate below it, 0..MaxDepth
	ExpiresAt   time.Time
	// Imported is set when the root stands for an outside credential whose
	// trusted root speaks for Issuer; nil for a root the board issues itself.
	Imported *Imported
}

// Imported describes where an imported root came from. Its Format,
// ExternalID and IssuerPrincipal are signed with the link.
type Imported struct {
	Format          string // "tenuo" or "biscuit"
	ExternalID      string
	Credential      []byte
	IssuerPrincipal string // base64url of the outside key that issued it
}

// IssueRoot signs and stores a root mandate from a person. It returns
// InvalidRequest when delegations is outside 0..MaxDepth ("delegations must
// be between 0 and 5"), the scope is empty or invalid, a limit is negative or
// not finite, there is no expiry, or an imported format is unknown; and
// NotFound when the holder is not an agent. It does not check that the issuer
// is a person of the holder's organization: [Service.Verify] refuses such a
// chain as chain_broken.
func (s *Service) IssueRoot(ctx context.Context, tx bun.IDB, in RootInput) (*Mandate, error) {
	if in.Delegations < 0 || in.Delegations > MaxDepth {
		return nil, errs.E(errs.InvalidRequest, "delegations must be between 0 and %d", MaxDepth)
	}
	if err := ValidScopes(in.Scope); err != nil {
		return nil, err
	}
	if err := checkLimits(in.Limits, "limit"); err != nil {
		return nil, err
	}
	if in.ExpiresAt.IsZero() {
		return nil, errs.E(errs.InvalidRequest, "a mandate needs an expiry")
	}
	m := &Mandate{
		IssuerKind:      IssuerHuman,
		Issuer:          in.Issuer,
		Holder:          in.Holder,
		Scope:           slices.Clone(in.Scope),
		Limits:          cloneLimits(in.Limits),
		DelegationsLeft: in.Delegations,
		ExpiresAt:       micro(in.ExpiresAt),
		Format:          FormatPact,
	}
	var credential []byte
	if imp := in.Imported; imp != nil {
		if imp.Format != FormatTenuo && imp.Format != FormatBiscuit {
			return nil, errs.E(errs.InvalidRequest, "credential format %q is not one of tenuo, biscuit", imp.Format)
		}
		m.Format, credential = imp.Format, imp.Credential
		m.ExternalID, m.IssuerPrincipal = &imp.ExternalID, &imp.IssuerPrincipal
	}
	if err := s.sign(ctx, tx, m, credential); err != nil {
		return nil, err
	}
	return m, nil
}

// ChildInput is a link an agent delegates below the leaf of its chain.
type ChildInput struct {
	Holder string
	Scope  []string
	Limits map[string]float64
	// ExpiresAt is used only when it is earlier than the parent's expiry; nil
	// (what the board always passes) means the child expires with its parent.
	ExpiresAt *time.Time
}

// IssueChild signs and stores a child of parent's leaf, held by in.Holder.
// parent must be a chain [Service.Verify] returned in this transaction.
// Authority only shrinks, and each refusal names the parent (mandate_id):
//   - DelegationExhausted when the parent has no delegations left or the
//     child would sit deeper than MaxDepth;
//   - ScopeExceeded "child scope is wider than mandate X: a, b" when a child
//     scope is not covered by the parent's;
//   - LimitExceeded "child limit k=v is above c on mandate X" when the child
//     sets a key the parent limits higher than the parent does (keys the
//     parent does not limit are allowed).
//
// After those it returns InvalidRequest for an empty or invalid scope or a
// negative or non-finite limit, and NotFound when the holder is not an agent.
func (s *Service) IssueChild(ctx context.Context, tx bun.IDB, parent Chain, in ChildInput) (*Mandate, error) {
	p := parent.Leaf()
	if p == nil {
		return nil, errs.Wrap(errors.New("empty chain"), "issue a child mandate")
	}
	pid := p.ID.String()
	if p.DelegationsLeft < 1 || p.Depth+1 > MaxDepth {
		return nil, errs.Mandate(errs.DelegationExhausted, pid, "mandate %s has no delegations left", pid)
	}
	if wider := Uncovered(in.Scope, p.Scope); len(wider) > 0 {
		return nil, errs.Mandate(errs.ScopeExceeded, pid, "child scope is wider than mandate %s: %s", pid, strings.Join(wider, ", "))
	}
	for _, k := range slices.Sorted(maps.Keys(in.Limits)) {
		if ceiling, ok := p.Limits[k]; ok && in.Limits[k] > ceiling {
			return nil, errs.Mandate(errs.LimitExceeded, pid, "child limit %s=%s is above %s on mandate %s",
				k, num(in.Limits[k]), num(ceiling), pid)
		}
	}
	if err := ValidScopes(in.Scope); err != nil {
		return nil, err
	}
	if err := checkLimits(in.Limits, "limit"); err != nil {
		return nil, err
	}
	expires := p.ExpiresAt
	if in.ExpiresAt != nil && micro(*in.ExpiresAt).Before(expires) {
		expires = micro(*in.ExpiresAt)
	}
	parentID := p.ID
	m := &Mandate{
		ParentID:        &parentID,
		IssuerKind:      IssuerAgent,
		Issuer:          p.Holder,
		Holder:          in.Holder,
		Scope:           slices.Clone(in.Scope),
		Limits:          cloneLimits(in.Limits),
		DelegationsLeft: p.DelegationsLeft - 1,
		Depth:           p.Depth + 1,
		ExpiresAt:       expires,
		Format:          FormatPact,
	}
	if err := s.sign(ctx, tx, m, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// sign gives m a fresh id and its signature, then stores it.
func (s *Service) sign(ctx context.Context, tx bun.IDB, m *Mandate, credential []byte) error {
	id, err := uuid.NewRandomFromReader(s.rand)
	if err != nil {
		return errs.Wrap(err, "new mandate id")
	}
	m.ID = id
	payload, err := m.Payload()
	if err != nil {
		return errs.Wrap(err, "sign mandate")
	}
	m.Signature = s.keys.Sign(payload)
	return insertMandate(ctx, tx, m, credential)
}

// Get returns the mandate with id as stored, revoked or not. It returns
// NotFound "mandate X does not exist" when id is not a UUID or no such
// mandate exists; it does not verify anything.
func (s *Service) Get(ctx context.Context, tx bun.IDB, id string) (*Mandate, error) {
	uid, ok := parseID(id)
	if !ok {
		return nil, errs.E(errs.NotFound, "mandate %s does not exist", id)
	}
	m, err := scanMandate(tx.QueryRowContext(ctx, getSQL, uid.String()))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.E(errs.NotFound, "mandate %s does not exist", id)
	}
	if err != nil {
		return nil, errs.Wrap(err, "get mandate")
	}
	return m, nil
}

func cloneLimits(l map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(l))
	maps.Copy(out, l)
	return out
}
