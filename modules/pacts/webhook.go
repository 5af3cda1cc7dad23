package pacts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// Webhook delivery: appendFeed queues a send per seated agent whose webhook
// is on (feedDelivery); workers in every board process claim due sends under
// a lease, post them through the webhook notifier plugin (Standard Webhooks
// signatures, public addresses only, checked on every dial) and settle them.
// A send is retried on Options.Retries; one that runs out has failed, and
// Options.SwitchOff failures in a row switch the agent's webhook off and
// tell its person through the outbox. A success resets the count.

// streamHandler serves the pact stream.
func (m *Module) streamHandler() http.Handler { return http.HandlerFunc(m.serveStream) }

// deliverLoop is the webhook worker: it delivers every due send, then
// sleeps until a feed append wakes it or the next retry is due.
func (m *Module) deliverLoop(ctx context.Context) error {
	sub := m.dlv.events.Subscribe(func(ev events.Event) bool { return ev.Kind == events.KindPact })
	defer sub.Close()
	for ctx.Err() == nil {
		if _, err := m.DeliverDue(ctx); err != nil {
			return err
		}
		wait := m.dlv.opts.Tick
		secs, err := nextSendIn(ctx, m.db)
		if err != nil {
			return err
		}
		if secs != nil {
			wait = min(wait, max(time.Duration(*secs*float64(time.Second)), 10*time.Millisecond))
		}
		waitFor(ctx, sub, wait)
	}
	return nil
}

// DeliverDue delivers every send due now, one after another, and returns
// how many it attempted. Delivery failures are recorded on the sends; only
// database errors are returned.
func (m *Module) DeliverDue(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		s, err := m.claimSend(ctx)
		if err != nil || s == nil {
			return n, err
		}
		n++
		if err := m.deliverSend(ctx, s); err != nil {
			return n, err
		}
	}
	return n, nil
}

// claimSend takes the next due send of an agent whose webhook is on, under
// this process's lease.
func (m *Module) claimSend(ctx context.Context) (*sendRow, error) {
	return claimDueSend(ctx, m.db, m.dlv.owner, m.dlv.opts.Lease)
}

// deliverSend posts s and settles it. The setting is read afresh: a send
// for an agent that left webhook mode, or whose webhook was switched off
// meanwhile, is dropped.
func (m *Module) deliverSend(ctx context.Context, s *sendRow) error {
	d, err := getDelivery(ctx, m.db, s.AgentID)
	if err != nil {
		return err
	}
	if d == nil || d.Mode != ModeWebhook || d.DisabledAt != nil {
		return sendDead(ctx, m.db, s.ID, m.dlv.owner, "the agent's webhook is off or no longer its delivery mode")
	}
	evs, stopped, err := m.sendable(ctx, s)
	if err != nil {
		return err
	}
	if stopped != "" {
		return sendDead(ctx, m.db, s.ID, m.dlv.owner, stopped)
	}
	dest, n, derr := m.webhookCall(d, evs)
	if derr == nil {
		derr = m.post(ctx, dest, n)
	}
	if derr == nil {
		return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if err := sendSent(ctx, tx, s.ID, m.dlv.owner); err != nil {
				return err
			}
			return resetFailures(ctx, tx, s.AgentID)
		})
	}
	why := errs.Public(derr).Message
	if s.Attempts <= len(m.dlv.opts.Retries) {
		wait := m.dlv.opts.Retries[s.Attempts-1]
		return sendLater(ctx, m.db, s.ID, m.dlv.owner, wait, why)
	}
	return m.failSend(ctx, s, d, evs, why)
}

// sendable reads s's feed row as the stream would send it, after the
// agent's standing, in one snapshot (SEC-015): stopped says why it goes
// out no more, when the agent no longer stands, no longer sits in the
// pact, or no live mandate of its covers pact.read in the pact's project.
func (m *Module) sendable(ctx context.Context, s *sendRow) (ev *streamEvent, stopped string, err error) {
	err = m.db.RunInTx(ctx, readSnapshot(), func(ctx context.Context, tx bun.Tx) error {
		heard, err := m.hears(ctx, tx, s.AgentID)
		refusal, refused := errs.As(err)
		if err != nil && !refused {
			return err
		}
		if refused {
			stopped = "the agent hears no pact now: " + refusal.Message
			return nil
		}
		if ev, err = heardEvent(ctx, tx, s.AgentID, heard.projects, s.FeedID); err != nil {
			return err
		}
		if ev == nil {
			stopped = "the agent no longer sits in the pact, or may no longer read pacts in its project"
		}
		return nil
	})
	return ev, stopped, err
}

// webhookCall opens d's sealed address and secret and builds the
// notification for ev. Its webhook-id is the same on every attempt: one
// per agent and feed row, by the row's number in the organization's feed.
func (m *Module) webhookCall(d *deliveryRow, ev *streamEvent) (notifier.Destination, notifier.Notification, error) {
	u, err := m.dlv.opts.Seal.Open(*d.URL, urlPlace(d.AgentID))
	if err != nil {
		return notifier.Destination{}, notifier.Notification{}, errs.E(errs.InvalidRequest, "the webhook address no longer opens: set it again with set_pact_delivery")
	}
	secret, err := m.dlv.opts.Seal.Open(*d.Secret, secretPlace(d.AgentID))
	if err != nil {
		return notifier.Destination{}, notifier.Notification{}, errs.E(errs.InvalidRequest, "the webhook secret no longer opens: set it again with set_pact_delivery")
	}
	data, _ := json.Marshal(ev) // plain fields: it cannot fail
	n := notifier.Notification{
		ID: strconv.FormatInt(ev.ID, 10), IdempotencyKey: "pact_" + d.AgentID + "_" + strconv.FormatInt(ev.ID, 10),
		Kind: "pact_event", Title: fmt.Sprintf("%s in %s", ev.Kind, ev.PactName), Detail: ev.Excerpt,
		OrgID: d.OrgID, AgentID: d.AgentID, CreatedAt: ev.At, Data: data,
	}
	return notifier.Destination{URL: u, Secret: secret}, n, nil
}

// post delivers n to dest through the webhook plugin.
func (m *Module) post(ctx context.Context, dest notifier.Destination, n notifier.Notification) error {
	if m.dlv.opts.Notifiers == nil {
		return errs.E(errs.Unavailable, "no notifier plugins run on this board")
	}
	p, err := m.dlv.opts.Notifiers.Notifier(m.dlv.opts.WebhookNotifier)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = p.Deliver(ctx, dest, n)
	return err
}

// failSend settles s as failed for good and counts the failure; the one
// that reaches Options.SwitchOff switches the webhook off, drops the
// agent's other pending sends and tells its person, in one transaction.
func (m *Module) failSend(ctx context.Context, s *sendRow, d *deliveryRow, ev *streamEvent, why string) error {
	return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := sendDead(ctx, tx, s.ID, m.dlv.owner, why); err != nil {
			return err
		}
		failures, found, err := countFailure(ctx, tx, s.AgentID)
		if err != nil || !found || failures < m.dlv.opts.SwitchOff {
			return err
		}
		return m.switchOff(ctx, tx, d, ev, failures)
	})
}

// switchOff turns the agent's webhook off and tells its person in one
// sentence: which job, which address, what to do.
func (m *Module) switchOff(ctx context.Context, tx bun.IDB, d *deliveryRow, ev *streamEvent, failures int) error {
	owner, _, err := identity.AgentOwner(ctx, tx, d.AgentID)
	if err != nil {
		return err
	}
	pact, err := getPact(ctx, tx, d.OrgID, ev.PactID, false)
	if err != nil || pact == nil {
		return fmt.Errorf("pacts: the pact of feed number %d: %w", ev.ID, err)
	}
	addr := "its webhook"
	if u, err := m.dlv.opts.Seal.Open(*d.URL, urlPlace(d.AgentID)); err == nil {
		addr = shownAddress(u)
	}
	sentence := fmt.Sprintf("%s stopped hearing about the job “%s”: %s did not accept %d deliveries in a row, so its webhook is off; "+
		"fix that address, then press Wake it or have %s call set_pact_delivery again.", d.AgentID, pact.Name, addr, failures, d.AgentID)
	if err := switchOffDelivery(ctx, tx, d.AgentID, sentence); err != nil {
		return err
	}
	if err := dropPendingSends(ctx, tx, d.AgentID); err != nil {
		return err
	}
	_, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.PactStuck, HumanID: owner, ProjectID: pact.ProjectID,
		AgentID: d.AgentID, Title: fmt.Sprintf("%s's pact webhook is switched off", d.AgentID), Detail: sentence})
	m.dlv.logger.Warn("pact webhook switched off", "agent", d.AgentID, "failures", failures)
	return err
}

// shownAddress is u without its query and fragment, which may carry a
// token.
func shownAddress(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "its webhook"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}
