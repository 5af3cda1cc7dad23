package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// notifierName is a plugin name as PACT_PLUGINS spells it.
var notifierName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)

// Limits of a destination's fields.
const (
	maxURL     = 2000
	maxSecret  = 500
	maxOptions = 20
	maxOption  = 500
)

// DestinationInput is a destination an owner adds to their organization.
type DestinationInput struct {
	// Notifier is the plugin's name in PACT_PLUGINS, e.g. "webhook".
	Notifier string `json:"notifier"`
	URL      string `json:"url"`
	// Secret is optional: a webhook plugin generates one when it is empty.
	Secret  string            `json:"secret,omitempty"`
	Options map[string]string `json:"options,omitempty"`
}

// Destination is a destination as listed: its URL only as a hint and never
// its secret, since either may be what grants access to the receiver.
type Destination struct {
	ID         int64             `json:"id"`
	OrgID      string            `json:"org_id"`
	Notifier   string            `json:"notifier"`
	URLHint    string            `json:"url_hint" example:"https://hooks.example.com/…3456" doc:"Scheme, host and the path's last 4 characters, never the whole URL"`
	HasSecret  bool              `json:"has_secret" doc:"Whether deliveries are signed with a secret (never shown again)"`
	Options    map[string]string `json:"options"`
	CreatedBy  string            `json:"created_by"`
	CreatedAt  time.Time         `json:"created_at"`
	DisabledBy *string           `json:"disabled_by" doc:"Who disabled it; null while it receives notifications"`
	DisabledAt *time.Time        `json:"disabled_at" doc:"null while it receives notifications"`
}

// AddedDestination is what AddDestination returns: the destination and its
// secret, shown this once.
type AddedDestination struct {
	Destination
	Secret string `json:"secret,omitempty" doc:"The signing secret, shown this once: never listed again"`
}

// Destinations is an organization's list: whether its Slack webhook is
// configured (source "org" for its own, "environment" for
// PACT_SLACK_WEBHOOK_URL in the default organization, "" for none) and its
// destinations, disabled ones included.
type Destinations struct {
	SlackSource string        `json:"slack_source" doc:"org: the organization's own Slack webhook; environment: PACT_SLACK_WEBHOOK_URL (the default organization only); empty: none"`
	Items       []Destination `json:"destinations" nullable:"false" doc:"Oldest first, disabled ones included"`
}

// AddDestination adds a destination to the organization of person by, who
// must be an owner: the named notifier plugin checks and completes it first
// (PrepareDestination; a webhook plugin generates its signing secret there),
// outside any transaction. The change and its admin.destination.add log
// entry commit together; the entry names the notifier and the URL's hint,
// never the URL or the secret.
//
// Refusals (logged): forbidden (not an enabled owner); invalid_request (a
// malformed input, an unknown notifier plugin, or the plugin refuses the
// destination). unavailable when the plugin is down.
func (s *Service) AddDestination(ctx context.Context, by string, in DestinationInput) (*AddedDestination, error) {
	payload := map[string]any{"notifier": in.Notifier, "url_hint": urlHint(in.URL)}
	var prepared *notifier.Destination
	var out *AddedDestination
	err := s.act(ctx, by, "owner", "admin.destination.add", payload, func(ctx context.Context, _ *person) error {
		if err := in.check(); err != nil {
			return err
		}
		var n notifier.Notifier
		if s.opts.Notifiers != nil {
			n, _ = s.opts.Notifiers.Notifier(in.Notifier)
		}
		if n == nil {
			return errs.E(errs.InvalidRequest, "no notifier plugin named %q runs on this board (PACT_PLUGINS)", in.Notifier)
		}
		var err error
		pctx, cancel := context.WithTimeout(ctx, s.opts.DeliverTimeout)
		defer cancel()
		prepared, err = n.PrepareDestination(pctx, notifier.Destination{URL: in.URL, Secret: in.Secret, Options: in.Options})
		if err == nil && (prepared == nil || prepared.URL == "") {
			err = errs.E(errs.InvalidRequest, "notifier plugin %q returned no destination", in.Notifier)
		}
		return err
	}, func(ctx context.Context, tx bun.Tx, p *person, e *ledger.Entry) error {
		opts, err := json.Marshal(nonNil(prepared.Options))
		if err != nil {
			return err
		}
		url, err := s.opts.Seal.Seal(prepared.URL, destinationPlace("url", p.OrgID))
		if err != nil {
			return err
		}
		var secret *string
		if prepared.Secret != "" {
			v, err := s.opts.Seal.Seal(prepared.Secret, destinationPlace("secret", p.OrgID))
			if err != nil {
				return err
			}
			secret = &v
		}
		d, err := insertDestination(ctx, tx, newDestination{OrgID: p.OrgID, Notifier: in.Notifier, URL: url, Secret: secret,
			OptionsJSON: string(opts), CreatedBy: p.ID})
		if err != nil {
			if db.PgCode(err) == db.CheckViolation {
				return errs.E(errs.InvalidRequest, "notifier plugin %q returned a destination the board cannot store", in.Notifier)
			}
			return err
		}
		e.Payload = map[string]any{"notifier": in.Notifier, "url_hint": urlHint(prepared.URL), "destination_id": d.ID}
		out = &AddedDestination{Destination: s.listed(d), Secret: prepared.Secret}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListDestinations lists the destinations of person by's organization,
// without secrets. Refusal: forbidden (not an enabled person).
func (s *Service) ListDestinations(ctx context.Context, by string) (*Destinations, error) {
	p, err := loadPerson(ctx, s.db, by, "viewer")
	if err != nil {
		return nil, err
	}
	slack, err := orgSlackWebhook(ctx, s.db, p.OrgID)
	if err != nil {
		return nil, fmt.Errorf("notify.ListDestinations: %w", err)
	}
	out := &Destinations{Items: []Destination{}}
	switch {
	case slack != "":
		out.SlackSource = "org"
	case p.OrgID == "default" && s.opts.SlackWebhookURL != "":
		out.SlackSource = "environment"
	}
	rows, err := destinationsOf(ctx, s.db, p.OrgID)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Items = append(out.Items, s.listed(&r))
	}
	return out, nil
}

// DisableDestination disables destination id of person by's organization,
// who must be an owner: nothing is sent there any more, including retries of
// notifications it has not had yet. Disabling a disabled destination changes
// nothing. Refusals (logged): forbidden; not_found (no such destination in
// the organization).
func (s *Service) DisableDestination(ctx context.Context, by string, id int64) (*Destination, error) {
	var out *Destination
	err := s.act(ctx, by, "owner", "admin.destination.disable", map[string]any{"destination_id": id}, nil,
		func(ctx context.Context, tx bun.Tx, p *person, e *ledger.Entry) error {
			r, err := disableDestination(ctx, tx, p.OrgID, id, p.ID)
			if err != nil {
				return err
			}
			if r == nil {
				return errs.E(errs.NotFound, "no destination %d in organization %s", id, p.OrgID)
			}
			d := s.listed(r)
			out = &d
			return nil
		})
	return out, err
}

// listed is r as people see it: the URL's hint, no secret.
func (s *Service) listed(r *destRow) Destination {
	hint := "unreadable (sealed under a retired board key): add it again"
	if u, err := s.opts.Seal.Open(r.URL, destinationPlace("url", r.OrgID)); err == nil {
		hint = urlHint(u)
	}
	d := Destination{ID: r.ID, OrgID: r.OrgID, Notifier: r.Notifier, URLHint: hint, HasSecret: r.HasSecret,
		Options: map[string]string{}, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, DisabledBy: r.DisabledBy,
		DisabledAt: r.DisabledAt}
	_ = json.Unmarshal([]byte(r.OptionsJSON), &d.Options) // an object of strings by construction
	return d
}

// check validates the input before any plugin sees it.
func (in *DestinationInput) check() error {
	if !notifierName.MatchString(in.Notifier) {
		return errs.E(errs.InvalidRequest, "notifier must be a plugin name (%s)", notifierName)
	}
	u, err := url.Parse(in.URL)
	if err != nil || u.Scheme == "" || u.Host == "" || len(in.URL) > maxURL {
		return errs.E(errs.InvalidRequest, "url must be an absolute URL of at most %d characters", maxURL)
	}
	if utf8.RuneCountInString(in.Secret) > maxSecret {
		return errs.E(errs.InvalidRequest, "secret must be at most %d characters", maxSecret)
	}
	if len(in.Options) > maxOptions {
		return errs.E(errs.InvalidRequest, "at most %d options", maxOptions)
	}
	for k, v := range in.Options {
		if k == "" || len(k) > 100 || utf8.RuneCountInString(v) > maxOption {
			return errs.E(errs.InvalidRequest, "option names are 1 to 100 characters, values at most %d", maxOption)
		}
	}
	return nil
}

// urlHint shows where a URL points without what may be a credential in its
// path or query: scheme, host and the path's last four characters.
func urlHint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	hint := u.Scheme + "://" + u.Host + "/"
	if p := []rune(u.EscapedPath()); len(p) > 8 {
		hint += "…" + string(p[len(p)-4:])
	}
	return hint
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
