package identity

import (
	"context"
	"regexp"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Id rules (docs/specs/behavior.md §2.4). The database checks them too.
var (
	slugID   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	humanID  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	emailRe  = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
	maxDays  = 365.0
	dayLen   = 24 * time.Hour
	defaultD = 30.0
)

// Options configure a Service.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// SeenFailed hears why a batch of last_seen stamps could not be
	// written (they are tried again); nil drops it.
	SeenFailed func(error)
}

// Service performs identity operations against the database and records
// each one in the log.
type Service struct {
	db       *db.DB
	log      *ledger.Log
	now      func() time.Time
	presence *presence
}

// NewService returns a Service.
func NewService(d *db.DB, log *ledger.Log, opts *Options) *Service {
	s := &Service{db: d, log: log, now: time.Now}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	var failed func(error)
	if opts != nil {
		failed = opts.SeenFailed
	}
	s.presence = newPresence(d, SeenEvery, failed)
	return s
}

// Act runs fn as person `by`, who must hold at least role min, and records
// it in the log as action, for operations modules perform on behalf of
// people (approving a task, answering it). fn fills in the entry's details;
// the person's organization anchors it. Refusals: forbidden (by unknown,
// disabled or below min) and whatever fn returns; a refusal changes nothing
// but its log entry.
func (s *Service) Act(ctx context.Context, by string, min Role, action string, payload any,
	fn func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error) error {
	if by == "" {
		return errs.E(errs.Forbidden, "name the person acting (--by <human-id>)")
	}
	e := ledger.Entry{Actor: "human:" + by, Action: action, Payload: payload}
	return s.log.Record(ctx, s.db, e, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		p, err := RequirePerson(ctx, tx, by, min)
		if p != nil {
			e.OrgID = p.OrgID
		}
		if err != nil {
			return err
		}
		return fn(ctx, tx, p, e)
	})
}

// Now is the service's clock, which the modules acting through it share.
func (s *Service) Now() time.Time { return s.now() }

// Term validates a term of d days (0: the default 30; at most 365), named
// what in the refusal, and returns the instant it ends. Refusal:
// invalid_request.
func (s *Service) Term(what string, d float64) (time.Time, error) {
	if d == 0 {
		d = defaultD
	}
	if !(d > 0 && d <= maxDays) {
		return time.Time{}, errs.E(errs.InvalidRequest, "%s must be more than 0 and at most %g days, not %g", what, maxDays, d)
	}
	return s.now().Add(time.Duration(d * float64(dayLen))).UTC().Truncate(time.Microsecond), nil
}

// translate turns the database's refusals into the board's codes (db.Refusal).
func translate(err error, what string) error { return db.Refusal(err, what) }
