package credentials

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// maxLabel bounds a trusted root's label, in characters.
const maxLabel = 200

// TrustedRoot is an outside Ed25519 key an organization trusts to issue
// credentials in the name of one of its people.
type TrustedRoot struct {
	Principal   string     `bun:"-" json:"principal" doc:"The key: base64url of its 32 raw bytes"`
	Raw         []byte     `bun:"principal" json:"-"`
	Human       string     `bun:"human" json:"human"`
	Label       *string    `bun:"label" json:"label"`
	CreatedBy   string     `bun:"created_by" json:"created_by"`
	CreatedAt   time.Time  `bun:"created_at" json:"created_at"`
	ActiveSince time.Time  `bun:"active_since" json:"active_since" doc:"Credentials issued under it count from here on"`
	RevokedAt   *time.Time `bun:"revoked_at" json:"revoked_at"`
}

// AddedRoot is what trusting a key hands back.
type AddedRoot struct {
	Principal   string  `json:"principal"`
	Human       string  `json:"human"`
	Label       *string `json:"label"`
	Reactivated bool    `json:"reactivated" doc:"The key had been revoked and is trusted again from now on"`
}

// ListTrustedRoots lists org's trusted roots, oldest first.
func (s *Service) ListTrustedRoots(ctx context.Context, org string) ([]TrustedRoot, error) {
	out, err := trustedRootsOf(ctx, s.db, org)
	for i := range out {
		out[i].Principal = base64.RawURLEncoding.EncodeToString(out[i].Raw)
	}
	return out, err
}

// TrustedRootsFor lists the trusted roots of person by's organization; any
// role may. Refusals: forbidden.
func (s *Service) TrustedRootsFor(ctx context.Context, by string) ([]TrustedRoot, error) {
	if by == "" {
		return nil, errs.E(errs.Forbidden, "name the person acting (--by <human-id>)")
	}
	p, err := identity.RequirePerson(ctx, s.db, by, identity.Viewer)
	if err != nil {
		return nil, err
	}
	return s.ListTrustedRoots(ctx, p.OrgID)
}

// AddTrustedRoot trusts publicKey (base64url of 32 raw bytes) to issue
// credentials on behalf of human. A key this organization revoked is
// trusted again, from now on, with the new human and label. Refusals, in
// this order: forbidden (owners only); invalid_request (the key does not
// decode, or the label is too long); not_found (human not in the
// organization); invalid_request (the key is live here, or another
// organization's).
func (s *Service) AddTrustedRoot(ctx context.Context, by, publicKey, human, label string) (*AddedRoot, error) {
	payload := map[string]any{"public_key": publicKey, "human": human, "label": label}
	var out *AddedRoot
	action := "admin.trusted_root.add"
	err := s.ident.Act(ctx, by, identity.Owner, action, payload, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		raw, err := ParsePublicKey(publicKey)
		if err != nil {
			return err
		}
		label = strings.TrimSpace(label)
		if len([]rune(label)) > maxLabel {
			return errs.E(errs.InvalidRequest, "a label is at most %d characters", maxLabel)
		}
		if err := s.ident.RequireHumanInOrg(ctx, tx, human, p.OrgID); err != nil {
			return err
		}
		exists, live, err := lockRoot(ctx, tx, p.OrgID, raw)
		if err != nil {
			return err
		}
		if live {
			// Roots are unique per organization: another organization's
			// never show here (docs/security.md, finding 9).
			return errs.E(errs.InvalidRequest, "this key is already a trusted root of this organization")
		}
		out = &AddedRoot{Principal: base64.RawURLEncoding.EncodeToString(raw), Human: human, Label: nilIfEmpty(label)}
		if !exists {
			err = insertTrustedRoot(ctx, tx, p.OrgID, raw, human, out.Label, p.ID)
		} else {
			out.Reactivated = true
			e.Action = "admin.trusted_root.reactivate"
			err = reactivateTrustedRoot(ctx, tx, p.OrgID, raw, human, out.Label)
		}
		return db.Refusal(err, "this key")
	})
	return out, wrap(err, "trust a key for %s", human)
}

// RevokeTrustedRoot stops trusting principal and returns how many roots it
// revoked (0 when it was already revoked). Refusals: forbidden (owners
// only); invalid_request (the principal does not decode); not_found (not
// a trusted root of the organization).
func (s *Service) RevokeTrustedRoot(ctx context.Context, by, principal string) (int64, error) {
	var n int64
	err := s.ident.Act(ctx, by, identity.Owner, "admin.trusted_root.revoke", map[string]any{"principal": principal},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			raw, err := ParsePublicKey(principal)
			if err != nil {
				return errs.E(errs.InvalidRequest, "a principal is base64url of a 32-byte public key")
			}
			found, err := countRoots(ctx, tx, p.OrgID, raw)
			if err != nil {
				return err
			}
			if found == 0 {
				return errs.E(errs.NotFound, "%s is not a trusted root", principal)
			}
			if n, err = revokeTrustedRoot(ctx, tx, p.OrgID, raw); err != nil {
				return fmt.Errorf("credentials.RevokeTrustedRoot: %w", err)
			}
			return nil
		})
	return n, wrap(err, "revoke trusted root %s", principal)
}

// nilIfEmpty is nil for a blank label, so the column stays NULL.
func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
