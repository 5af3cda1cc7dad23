package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// NoDestination is the last_error of a notification set aside because its
// organization has nowhere to send it (docs/specs/behavior.md §8.6): such a row is
// never sent later, even once a destination is added.
const NoDestination = "no destination for this organization: set its Slack webhook or add a destination"

// AddresseeDisabled is the last_error of a notification for one person set
// aside because that person was disabled before it went out.
const AddresseeDisabled = "the person it is for is disabled: enable them again to reach them; nothing is sent meanwhile"

// DeliverDue delivers every outbox row that is due now, one after another,
// as one more worker would, and returns how many rows it attempted. It
// returns only database errors; delivery failures are recorded on the rows.
// A canceled ctx stops it between rows, or mid-delivery leaving the row's
// lease to expire.
func (s *Service) DeliverDue(ctx context.Context) (int, error) {
	owner := fmt.Sprintf("%s/call%d", s.owner, s.calls.Add(1))
	return s.drain(ctx, owner)
}

// drain claims and delivers rows as owner until none is due.
func (s *Service) drain(ctx context.Context, owner string) (int, error) {
	n := 0
	for ctx.Err() == nil {
		r, err := s.claim(ctx, owner)
		if err != nil || r == nil {
			return n, err
		}
		n++
		if err := s.handle(ctx, owner, r); err != nil {
			return n, err
		}
	}
	return n, ctx.Err()
}

// claim takes the next due row under owner's lease (core/outbox.Claim).
func (s *Service) claim(ctx context.Context, owner string) (*row, error) {
	return outbox.Claim(ctx, s.db, owner, s.opts.Lease)
}

// target is one destination of a row's organization.
type target struct {
	Key      string  `bun:"key"` // "slack" or "d<id>"
	Notifier string  `bun:"notifier"`
	URL      string  `bun:"url"`
	Secret   *string `bun:"secret"`
	Options  string  `bun:"options"`
	Sent     bool    `bun:"sent"`
	Failed   bool    `bun:"failed"`
	Detail   *string `bun:"detail"`
	// unreadable is why URL or Secret did not open (openTarget), or why a
	// person's email has nowhere to go.
	unreadable error
	// email, for a person's email, is that person (email.go).
	email *emailRecipient
}

func (t *target) label() string {
	if t.Key == "slack" {
		return "Slack webhook"
	}
	if t.email != nil {
		return "email to " + t.email.HumanID
	}
	return fmt.Sprintf("destination %s (%s)", strings.TrimPrefix(t.Key, "d"), t.Notifier)
}

func (t *target) destination() notifier.Destination {
	d := notifier.Destination{URL: t.URL, Secret: deref(t.Secret)}
	_ = json.Unmarshal([]byte(t.Options), &d.Options) // a jsonb object of strings by construction
	return d
}

// targets lists r's organization's destinations now: its Slack webhook (for
// the default organization PACT_SLACK_WEBHOOK_URL until it sets its own)
// and its enabled destinations, each with what this row's earlier attempts
// settled there, their URLs and secrets opened.
func (s *Service) targets(ctx context.Context, r *row) ([]target, error) {
	ts, err := deliveryTargets(ctx, s.db, s.opts.SlackNotifier, r.OrgID, r.ID)
	if err != nil {
		return nil, err
	}
	out := ts[:0]
	for _, t := range ts {
		s.openTarget(r.OrgID, &t)
		if t.URL != "" {
			out = append(out, t)
		}
	}
	emails, err := s.emailTargets(ctx, r)
	if err != nil {
		return nil, err
	}
	return append(out, emails...), nil
}

// handle delivers claimed row r to every destination not yet settled and
// records the outcome. A notifier's errs.InvalidRequest settles that
// destination for good (the receiver refuses it); any other error
// (errs.Unavailable, a missing plugin, a timeout) is retried. It returns
// only database errors and ctx's end.
func (s *Service) handle(ctx context.Context, owner string, r *row) error {
	log := s.logger.With("notification", r.ID, "kind", r.Kind, "org", r.OrgID, "attempt", r.Attempts)
	if r.Attempts > s.opts.MaxAttempts {
		// The worker of the last attempt stopped before settling it.
		why := "the last attempt did not finish (its worker stopped)"
		if r.LastError != nil {
			why += "; before that: " + *r.LastError
		}
		log.Error("notification is dead", "error", why)
		return s.settled(metrics.DeliveryDead, outbox.Dead(ctx, s.db, owner, r.ID, clip(why, 1000)))
	}
	// A stop reaches every channel (docs/security.md): nothing addressed
	// to a person goes out once they are disabled.
	if r.HumanID != nil {
		disabled, err := s.addresseeDisabled(ctx, *r.HumanID)
		if err != nil {
			return err
		}
		if disabled {
			log.Info("notification set aside: the person it is for is disabled")
			return s.settled(metrics.DeliveryDead, outbox.Dead(ctx, s.db, owner, r.ID, AddresseeDisabled))
		}
	}
	ts, err := s.targets(ctx, r)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		log.Warn("notification set aside: its organization has no destination")
		return s.settled(metrics.DeliveryDead, outbox.Dead(ctx, s.db, owner, r.ID, NoDestination))
	}
	msg := s.message(r)
	if msg.Language, err = s.language(ctx, r.OrgID, msg.HumanID); err != nil {
		return err
	}
	var sent bool
	var retry, refused []string
	for i := range ts {
		t := &ts[i]
		switch {
		case t.Sent:
			sent = true
			continue
		case t.Failed:
			refused = append(refused, deref(t.Detail))
			continue
		}
		if i > 0 {
			// Each destination gets a full lease: a row with several slow
			// destinations must not be taken over while still in hand.
			if ok, err := s.renew(ctx, owner, r.ID); err != nil || !ok {
				return err
			}
		}
		m := msg
		if t.email != nil {
			m = s.emailMessage(msg, t)
		}
		rec, err := s.deliverOne(ctx, t, m)
		if ctx.Err() != nil {
			return ctx.Err() // stopping: the lease expires and another worker retries
		}
		var dbErr error
		switch {
		case err == nil:
			sent = true
			log.Debug("delivered", "destination", t.label(), "status", receiptStatus(rec))
			// A person's email is always recorded: the notification's
			// other people may come later (email.go).
			if len(ts) > 1 || t.email != nil {
				dbErr = s.record(ctx, r.ID, t.Key, true, rec, "")
			}
		case errs.CodeOf(err) == errs.InvalidRequest:
			text := errorText(t.label(), t.URL, err)
			refused = append(refused, text)
			log.Warn("destination refused the notification for good", "error", text)
			if len(ts) > 1 || t.email != nil {
				dbErr = s.record(ctx, r.ID, t.Key, false, rec, text)
			}
		default:
			text := errorText(t.label(), t.URL, err)
			retry = append(retry, text)
			log.Warn("delivery failed; will retry", "error", text)
		}
		if dbErr != nil {
			return dbErr
		}
	}
	return s.conclude(ctx, owner, r, sent, retry, refused)
}

// conclude settles r after its attempt: retry later while a destination
// failed in a way worth retrying and attempts remain; sent when some
// destination has it and none is left to retry; dead otherwise.
func (s *Service) conclude(ctx context.Context, owner string, r *row, sent bool, retry, refused []string) error {
	errText := clip(strings.Join(append(retry, refused...), "; "), 1000)
	log := s.logger.With("notification", r.ID, "kind", r.Kind, "org", r.OrgID)
	switch {
	case len(retry) > 0 && r.Attempts < s.opts.MaxAttempts:
		wait := s.backoff(r.Attempts)
		return s.settled(metrics.DeliveryRetry, outbox.Retry(ctx, s.db, owner, r.ID, wait, errText))
	case len(retry) > 0:
		log.Error("notification is dead after its last attempt", "attempts", r.Attempts, "error", errText)
		return s.settled(metrics.DeliveryDead, outbox.Dead(ctx, s.db, owner, r.ID, errText))
	case sent:
		return s.settled(metrics.DeliverySent, outbox.Sent(ctx, s.db, owner, r.ID, errText))
	default:
		log.Error("notification is dead: every destination refused it", "error", errText)
		return s.settled(metrics.DeliveryDead, outbox.Dead(ctx, s.db, owner, r.ID, errText))
	}
}

// settled counts a delivery attempt that settled as outcome (err: the
// settling failed, and the attempt is not counted: the lease expires and
// another worker takes the row again).
func (s *Service) settled(outcome string, err error) error {
	if err == nil {
		s.opts.Metrics.Delivery(outcome)
	}
	return err
}

// backoff is the wait after attempt number n failed: RetryBase doubling
// (30 s, 60 s, 120 s, …).
func (s *Service) backoff(n int) time.Duration {
	return s.opts.RetryBase << min(max(n-1, 0), 20)
}

// renew extends owner's lease on row id; false when the lease was lost.
func (s *Service) renew(ctx context.Context, owner string, id int64) (bool, error) {
	return outbox.Renew(ctx, s.db, owner, id, s.opts.Lease)
}

// record settles one destination of a notification with several, so its
// retries skip it.
func (s *Service) record(ctx context.Context, id int64, key string, sent bool, rec *notifier.Receipt, detail string) error {
	var status *int
	if rec != nil && rec.Status != 0 {
		status = &rec.Status
	}
	return insertDeliveryOutcome(ctx, s.db, id, key, sent, status, nullable(detail))
}

// deliverOne sends msg to t through its notifier, under DeliverTimeout. A
// notifier the board cannot find counts as an outage (retried).
func (s *Service) deliverOne(ctx context.Context, t *target, msg notifier.Notification) (*notifier.Receipt, error) {
	if t.unreadable != nil {
		return nil, t.unreadable
	}
	n, err := s.notifier(t.Notifier)
	if err != nil {
		return nil, errs.E(errs.Unavailable, "%s", messageOf(err))
	}
	dctx, cancel := context.WithTimeout(ctx, s.opts.DeliverTimeout)
	defer cancel()
	return n.Deliver(dctx, t.destination(), msg)
}

// messageOf is err's message without its code.
func messageOf(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Message
	}
	return err.Error()
}

func receiptStatus(r *notifier.Receipt) int {
	if r == nil {
		return 0
	}
	return r.Status
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
