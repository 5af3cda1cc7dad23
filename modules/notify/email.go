package notify

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// Email (docs/notifications.md, "Email"): a notice is emailed to each
// person it is addressed to (their inbox row, core/outbox.AddressedTo) who
// is enabled and chose its kind, once, in their own language, through the
// notifier plugin named Options.EmailNotifier ("email", which
// PACT_SMTP_URL runs). Each person is a destination of their own,
// "email:<id>" in notification_deliveries, so a retry of the notification
// skips the people who have it, and a person the mail server refuses for
// good (or who has no address) is recorded there and never tried again.
// Email is off for every kind until the person turns it on.

// Labels of the links an email carries; the email plugin writes them in the
// recipient's language.
const (
	NotificationsLabel = "Your notifications"
	EmailSettingsLabel = "Email settings"
)

// NoEmailAddress is what a person's email delivery records when they
// chose a kind but have no address: nothing is sent to them.
const NoEmailAddress = "no email address: the person chose to have this kind emailed but has none; nothing is sent"

// EmailSettings are a person's email choices.
type EmailSettings struct {
	Sending bool   `json:"sending" doc:"Whether this board sends email at all (PACT_SMTP_URL)"`
	Address string `json:"address,omitempty" doc:"Where your email goes; absent: you have no address, and nothing is sent"`
	// Kinds lists every kind of notice, each with whether it is emailed.
	Kinds []EmailKind `json:"kinds" nullable:"false"`
}

// EmailKind is one kind of notice and whether it is emailed.
type EmailKind struct {
	Kind  string `json:"kind" doc:"A kind of notice (docs/notifications.md, Who is told)"`
	Email bool   `json:"email" doc:"Emailed to you when it concerns you"`
}

// emailOn reports whether this board sends email: a notifier plugin runs
// under Options.EmailNotifier's name. A plugin that is down counts as
// running, so its deliveries wait and retry.
func (s *Service) emailOn() bool {
	if s.opts.Notifiers == nil {
		return false
	}
	_, err := s.opts.Notifiers.Notifier(s.opts.EmailNotifier)
	return err == nil || errs.CodeOf(err) != errs.NotFound
}

// EmailSettingsOf returns p's email choices.
func (s *Service) EmailSettingsOf(ctx context.Context, p *identity.Person) (*EmailSettings, error) {
	on, address, err := s.emailChoicesOf(ctx, p.OrgID, p.ID)
	if err != nil {
		return nil, err
	}
	out := &EmailSettings{Sending: s.emailOn(), Address: address}
	for _, k := range outbox.Kinds() {
		out.Kinds = append(out.Kinds, EmailKind{Kind: string(k), Email: slices.Contains(on, string(k))})
	}
	return out, nil
}

// SetEmailKinds makes kinds exactly the kinds emailed to p; an unknown kind
// is invalid_request and changes nothing.
func (s *Service) SetEmailKinds(ctx context.Context, p *identity.Person, kinds []string) (*EmailSettings, error) {
	for _, k := range kinds {
		if !slices.Contains(outbox.Kinds(), outbox.Kind(k)) {
			return nil, errs.E(errs.InvalidRequest, "%q is no kind of notice; the kinds are those GET /me/email lists", k)
		}
	}
	if err := s.setEmailChoices(ctx, p.OrgID, p.ID, kinds); err != nil {
		return nil, err
	}
	return s.EmailSettingsOf(ctx, p)
}

// emailTargets are r's email deliveries: one per person it is emailed to.
func (s *Service) emailTargets(ctx context.Context, r *row) ([]target, error) {
	if !s.emailOn() {
		return nil, nil
	}
	rs, err := s.emailRecipients(ctx, r.ID, string(r.Kind))
	if err != nil {
		return nil, err
	}
	ts := make([]target, 0, len(rs))
	for _, p := range rs {
		opts, _ := json.Marshal(map[string]string{"name": p.Name}) // a map of strings always marshals
		t := target{Key: emailKeyPrefix + p.HumanID, Notifier: s.opts.EmailNotifier, Options: string(opts),
			Sent: p.Sent, Failed: p.Failed, Detail: p.Detail, email: &p}
		if p.Email != "" {
			t.URL = "mailto:" + p.Email
		} else {
			t.unreadable = errs.E(errs.InvalidRequest, "%s", NoEmailAddress)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// emailMessage is msg as emailed to t's person: in their language, with
// links to their notifications and to their email choices.
func (s *Service) emailMessage(msg notifier.Notification, t *target) notifier.Notification {
	msg.Language = t.email.Language
	msg.Links = slices.Clone(msg.Links)
	if c := s.opts.ConsoleURL; c != "" {
		msg.Links = append(msg.Links, notifier.Link{Label: NotificationsLabel, URL: c + "/notifications"},
			notifier.Link{Label: EmailSettingsLabel, URL: c + "/settings"})
	}
	return msg
}
