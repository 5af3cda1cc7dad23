package mandate

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/pactboard/pact/core/canon"
)

// MaxDepth is the longest chain below a human root: a root may grant at most
// MaxDepth delegations, and no link sits deeper than MaxDepth.
const MaxDepth = 5

// Issuer kinds and formats, as stored in the mandates table.
const (
	IssuerHuman = "human"
	IssuerAgent = "agent"

	FormatPact    = "pact"
	FormatTenuo   = "tenuo"
	FormatBiscuit = "biscuit"
)

// Mandate is one signed link. Everything but RevokedAt, Signature and
// CreatedAt is covered by the signature (see [Mandate.Payload]).
type Mandate struct {
	ID              uuid.UUID          `json:"id"`
	ParentID        *uuid.UUID         `json:"parent_id"`   // nil for a root
	IssuerKind      string             `json:"issuer_kind"` // "human" for a root, "agent" below it
	Issuer          string             `json:"issuer"`      // human id for a root, else the parent's holder
	Holder          string             `json:"holder"`      // agent id
	Scope           []string           `json:"scope"`       // order matters: it is signed as stored
	Limits          map[string]float64 `json:"limits"`
	DelegationsLeft int                `json:"delegations_left"`
	Depth           int                `json:"depth"`
	ExpiresAt       time.Time          `json:"expires_at"` // UTC, whole microseconds
	RevokedAt       *time.Time         `json:"revoked_at"`
	Signature       string             `json:"signature"`
	// Format says where the link came from: "pact" for one the board issued,
	// else the credential format it was imported from ("tenuo", "biscuit").
	Format string `json:"format"`
	// ExternalID and IssuerPrincipal are set for imported links:
	// IssuerPrincipal is the base64url outside key (a trusted root) that
	// issued the credential.
	ExternalID      *string   `json:"external_id"`
	IssuerPrincipal *string   `json:"issuer_principal"`
	CreatedAt       time.Time `json:"created_at"`
}

// Payload returns the canonical JSON the signature covers: id, parent_id
// (null for a root), issuer_kind, issuer, holder, scope, limits,
// delegations_left, depth and expires_at, plus format, external_id and
// issuer_principal for an imported link (so the trusted root a link answers
// to cannot be swapped in the database). It fails only when a limit is not a
// finite number, which [Service] never stores.
func (m *Mandate) Payload() ([]byte, error) {
	limits := make(map[string]any, len(m.Limits))
	for k, v := range m.Limits {
		limits[k] = v
	}
	var parent any
	if m.ParentID != nil {
		parent = m.ParentID.String()
	}
	scope := m.Scope
	if scope == nil {
		scope = []string{}
	}
	p := map[string]any{
		"id":               m.ID.String(),
		"parent_id":        parent,
		"issuer_kind":      m.IssuerKind,
		"issuer":           m.Issuer,
		"holder":           m.Holder,
		"scope":            scope,
		"limits":           limits,
		"delegations_left": m.DelegationsLeft,
		"depth":            m.Depth,
		"expires_at":       canon.ISO(m.ExpiresAt),
	}
	if m.Format != FormatPact && m.Format != "" {
		p["format"] = m.Format
		p["external_id"] = optional(m.ExternalID)
		p["issuer_principal"] = optional(m.IssuerPrincipal)
	}
	b, err := canon.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("mandate %s payload: %w", m.ID, err)
	}
	return b, nil
}

func optional(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// Chain is a path of links from a human root down to the link an agent
// presented, root first. [Service.Verify] returns one; it is only as good as
// the transaction it was verified in.
type Chain []*Mandate

// Leaf returns the last link, the one the caller presented, or nil for an
// empty chain.
func (c Chain) Leaf() *Mandate {
	if len(c) == 0 {
		return nil
	}
	return c[len(c)-1]
}

// Root returns the first link, the one a person issued, or nil for an empty
// chain.
func (c Chain) Root() *Mandate {
	if len(c) == 0 {
		return nil
	}
	return c[0]
}

// IDs returns the ids of the links, root first: a log entry's mandate_chain.
func (c Chain) IDs() []uuid.UUID {
	ids := make([]uuid.UUID, len(c))
	for i, m := range c {
		ids[i] = m.ID
	}
	return ids
}

// parseID reads a mandate id. Only the canonical 8-4-4-4-12 spelling is an
// id; anything else (braces, urn:uuid:, no dashes) is a mandate that does not
// exist, never a database error.
func parseID(s string) (uuid.UUID, bool) {
	if len(s) != 36 {
		return uuid.UUID{}, false
	}
	id, err := uuid.Parse(s)
	return id, err == nil
}
