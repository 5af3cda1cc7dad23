package pacts

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// How an agent hears of pact activity (docs/pacts.md, "Delivery without
// polling"): set_pact_delivery and "Wake it" are adapters over these.

// DeliveryChoice is an agent's choice: Mode, and for a webhook its address
// and, optionally, its signing secret.
type DeliveryChoice struct {
	Mode        string
	URL, Secret string
}

// DeliverySet is what setting a delivery did: for a webhook, the address
// deliveries go to and the secret made when none was given (shown once);
// Woken when it turned a switched-off webhook back on.
type DeliverySet struct {
	URL, Secret string
	Woken       bool
}

// SetDelivery sets how agent a hears of every pact it sits in, including
// later ones. It needs pact.read on one of a's projects (scope_exceeded);
// url and secret go with mode webhook only (invalid_request); a webhook's
// address is checked by the webhook plugin (prepareWebhook), and it and
// the secret are stored sealed for a alone.
func (s *Service) SetDelivery(ctx context.Context, tx bun.IDB, a Actor, acc Access, in DeliveryChoice) (DeliverySet, error) {
	if len(acc.Read) == 0 {
		return DeliverySet{}, errs.E(errs.ScopeExceeded, "set_pact_delivery needs a mandate with pact.read on one of your projects")
	}
	if in.Mode != ModeWebhook && (in.URL != "" || in.Secret != "") {
		return DeliverySet{}, errs.E(errs.InvalidRequest, "url and secret go with mode webhook only")
	}
	var out DeliverySet
	var url, secret *string
	if in.Mode == ModeWebhook {
		dest, err := s.prepareWebhook(ctx, in.URL, in.Secret)
		if err != nil {
			return DeliverySet{}, err
		}
		sealedURL, err := s.dlv.Seal.Seal(dest.URL, urlPlace(a.Agent))
		if err != nil {
			return DeliverySet{}, err
		}
		sealedSecret, err := s.dlv.Seal.Seal(dest.Secret, secretPlace(a.Agent))
		if err != nil {
			return DeliverySet{}, err
		}
		url, secret, out.URL = &sealedURL, &sealedSecret, dest.URL
		if in.Secret == "" {
			out.Secret = dest.Secret
		}
	}
	var err error
	out.Woken, err = putDelivery(ctx, tx, a.Agent, a.Org, in.Mode, url, secret)
	return out, err
}

// prepareWebhook checks the address through the webhook plugin (https, a
// host that resolves only to public addresses) and completes the secret.
func (s *Service) prepareWebhook(ctx context.Context, url, secret string) (*notifier.Destination, error) {
	if strings.TrimSpace(url) == "" {
		return nil, errs.E(errs.InvalidRequest, "mode webhook needs url: a public https:// address")
	}
	if s.dlv == nil || s.dlv.Notifiers == nil {
		return nil, errs.E(errs.Unavailable, "this board runs no webhook plugin; use mode stream")
	}
	p, err := s.dlv.Notifiers.Notifier(s.dlv.WebhookNotifier)
	if err != nil {
		return nil, errs.E(errs.Unavailable, "this board runs no webhook plugin (%s); use mode stream", s.dlv.WebhookNotifier)
	}
	return p.PrepareDestination(ctx, notifier.Destination{URL: url, Secret: secret})
}

// WakeDelivery turns agent's switched-off pact webhook back on as person p
// (Wake it): an approver or owner wakes any agent's of the organization,
// other people only their own agents'. e, the log entry of p's act, is
// told the agent. It answers whether the webhook was off; not_found when
// the agent is not the organization's, or has no webhook.
func (s *Service) WakeDelivery(ctx context.Context, tx bun.IDB, p *identity.Person, agent string, e *ledger.Entry) (bool, error) {
	a, err := s.ident.GetAgent(ctx, tx, agent, p.OrgID)
	if err != nil {
		return false, err
	}
	e.AgentID = a.ID
	if !p.Role.AtLeast(identity.Approver) && a.Owner != p.ID {
		return false, errs.E(errs.Forbidden, "only %s's person (%s), an approver or an owner may wake its webhook", a.ID, a.Owner)
	}
	woke, found, err := wakeDelivery(ctx, tx, a.ID)
	if err != nil {
		return false, err
	}
	if !found {
		return false, errs.E(errs.NotFound, "agent %s has no pact webhook: it chose another delivery mode", a.ID)
	}
	return woke, nil
}
