package pacts

import (
	"context"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Limits of a pact (docs/pacts.md).
const (
	MaxSeats        = 12
	WritesPerMinute = 30
	DefaultOpenCap  = 10
	newsLimit       = 50
)

// Service holds the pact rules: the MCP tools, the Admin API's operations
// and pact-admin are adapters over its methods, and its store (store*.go)
// holds the SQL. Its methods take the caller's transaction and the actor,
// with the projects the actor may read and write pacts in (Access: an
// agent's from its mandate, AgentAccess; a person's, PersonAccess).
type Service struct {
	db    *db.DB
	log   *ledger.Log
	ident *identity.Service
	// mandates verify an agent's mandate (AgentAccess); the module sets
	// them, and a service made alone serves people only.
	mandates *mandate.Service
	// dlv is the module's delivery options (delivery.go), which check and
	// seal webhooks; nil until the module registers its delivery, and for
	// a service made alone, which then refuses webhooks as unavailable.
	dlv *Options
}

// NewService returns the pacts service.
func NewService(d *db.DB, log *ledger.Log, ident *identity.Service) *Service {
	return &Service{db: d, log: log, ident: ident}
}

// Access is where an actor may reach pacts: the projects it may read them
// in, and those it may write them in. For an agent these are its projects
// that its mandate covers with pact.read and pact.write; for a person,
// every project of the organization.
type Access struct {
	Read, Write []string
	// Found, when set, is told the project of the pact the call reaches,
	// so its log entry (a refusal's too) lands on that project's chain.
	Found func(project string)
}

// ruler answers agent's person, refusing forbidden unless they are an
// enabled owner or approver of the organization: starting a pact and
// pausing or waking a job (what) are theirs to allow. A person acting
// through the Admin API passed the same bar at the operation's role gate.
func (s *Service) ruler(ctx context.Context, tx bun.IDB, agent, what string) (string, error) {
	owner, _, err := identity.AgentOwner(ctx, tx, agent)
	if err != nil {
		return "", err
	}
	p, err := s.ident.GetPerson(ctx, tx, owner)
	if err != nil {
		return "", err
	}
	if !p.Role.AtLeast(identity.Approver) || p.DisabledAt != nil {
		return "", errs.E(errs.Forbidden, "%s needs your person (%s) to be an owner or approver of the organization; they are a %s",
			what, owner, p.Role)
	}
	return owner, nil
}

// Locate finds, in org, the pact named by id or else the pact of decision
// decision, and its project ("" when there is none): where the Admin API
// records a refusal of its gate (recordRefused).
func (s *Service) Locate(ctx context.Context, d bun.IDB, org, id, decision string) (pact, project string, err error) {
	return pactOf(ctx, d, org, id, decision)
}

// reach reads pact id for a, refusing not_found (naming the projects
// searched) when a cannot read it.
func (s *Service) reach(ctx context.Context, tx bun.IDB, a Actor, acc Access, id string, lock bool) (*pactRow, error) {
	if !validUUID(id) {
		return nil, notFound(id, acc.Read)
	}
	p, err := getPact(ctx, tx, a.Org, id, lock)
	if err != nil {
		return nil, err
	}
	if p == nil || !slices.Contains(acc.Read, p.ProjectID) {
		return nil, notFound(id, acc.Read)
	}
	if acc.Found != nil {
		acc.Found(p.ProjectID)
	}
	return p, nil
}

// writable reads pact id and a's seat in it for a write, in the order the
// refusals are documented (docs/pacts.md "Refusals"): not_found,
// scope_exceeded, forbidden (closed, no seat, removed, not joined),
// agent_paused, limit_exceeded. The seat comes back locked.
func (s *Service) writable(ctx context.Context, tx bun.IDB, a Actor, acc Access, id string) (*pactRow, *seatRow, error) {
	p, err := s.reach(ctx, tx, a, acc, id, false)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Contains(acc.Write, p.ProjectID) {
		return nil, nil, errs.E(errs.ScopeExceeded, "writing in pact %s needs pact.write@project:%s", p.ID, p.ProjectID)
	}
	if p.ClosedAt != nil {
		return nil, nil, errs.E(errs.Forbidden, "pact %s is closed: it stays readable and accepts no writes", p.ID)
	}
	seat, err := seatOf(ctx, tx, p.ID, a, true)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case seat == nil:
		return nil, nil, errs.E(errs.Forbidden, "%s has no seat in pact %s: a participant invites you, then you join", a, p.ID)
	case seat.RemovedAt != nil:
		return nil, nil, errs.E(errs.Forbidden, "your seat %s in pact %s was removed: what you wrote stays, and you can add nothing more", seat.Key, p.ID)
	case seat.JoinedAt == nil:
		return nil, nil, errs.E(errs.Forbidden, "seat %s in pact %s waits for you: take it with join_pact first", seat.Key, p.ID)
	case seat.PausedAt != nil:
		return nil, nil, pausedRefusal(p.ID, seat)
	}
	if err := s.rateLimit(ctx, tx, p.ID, seat.Key); err != nil {
		return nil, nil, err
	}
	return p, seat, nil
}

// rateLimit refuses a seat's write past WritesPerMinute in the last
// minute, saying when the next one is allowed.
func (s *Service) rateLimit(ctx context.Context, tx bun.IDB, pact, seat string) error {
	n, wait, err := recentWrites(ctx, tx, pact, seat, WritesPerMinute)
	if err != nil {
		return err
	}
	if n >= WritesPerMinute {
		return errs.E(errs.LimitExceeded, "seat %s wrote %d times in pact %s in the last minute, the most a participant may: "+
			"try again in %d seconds", seat, WritesPerMinute, pact, max(1, int(wait+0.999)))
	}
	return nil
}

// Written is what every write answers: where the feed is now, and what
// others wrote since the actor's last write.
type Written struct {
	Cursor int64      `json:"cursor" jsonschema:"The pact's feed after this write: pass it as get_pact's since."`
	News   []feedItem `json:"since_your_last_write" jsonschema:"What others wrote in this pact since your last write, oldest first (at most 50; get_pact reads the rest)."`
	// replaced is what a zone or handshake write replaced, version the
	// zone's version after it, and seat the seat written: the log entry of
	// an agent's write keeps them, so Undo can restore exactly that
	// (docs/pacts.md, "Undo").
	replaced *string
	version  int
	seat     string
}

// undoFacts is what the log entry of an agent's zone or handshake write
// keeps beside its arguments for Undo: the seat, the replaced text, and
// the zone's version after the write.
func (w Written) undoFacts() map[string]any {
	if w.replaced == nil {
		return nil
	}
	facts := map[string]any{"seat": w.seat, "previous": *w.replaced}
	if w.version > 0 {
		facts["version"] = w.version
	}
	return facts
}

// wrote records the seat's write at pos and gathers what others wrote
// since its previous one.
func wrote(ctx context.Context, tx bun.IDB, seat *seatRow, pos feedPos) (Written, error) {
	news, err := others(ctx, tx, seat.PactID, seat.Key, seat.WriteUpto, pos.ID, newsLimit)
	if err != nil {
		return Written{}, err
	}
	if news == nil {
		news = []feedItem{}
	}
	return Written{Cursor: pos.Seq, News: news}, nil
}

func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func iso(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// notFound is the refusal for a pact the actor cannot see; it names the
// projects that were searched, which is usually the whole explanation.
func notFound(id string, searched []string) error {
	return errs.E(errs.NotFound, "no pact %s in the projects searched (%s): a pact reaches you only in a project "+
		"you and it share, under a mandate with pact.read there", id, list(searched))
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
