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

// sendRow is a claimed send with what delivering it needs.
type sendRow struct {
	ID       int64  `bun:"id"`
	AgentID  string `bun:"agent_id"`
	FeedID   int64  `bun:"feed_id"`
	Attempts int    `bun:"attempts"`
}

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
		var secs *float64
		if err := m.db.NewRaw(`SELECT extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_expires_at, next_attempt_at)) - now()))::float8
			FROM pact_sends WHERE sent_at IS NULL AND dead_at IS NULL`).Scan(ctx, &secs); err != nil {
			return fmt.Errorf("pacts: next webhook send: %w", err)
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
	var rows []sendRow
	err := m.db.NewRaw(`UPDATE pact_sends q SET attempts = q.attempts + 1, lease_owner = ?,
			lease_expires_at = now() + make_interval(secs => ?)
		FROM (SELECT s.id FROM pact_sends s JOIN pact_delivery d ON d.agent_id = s.agent_id
		      WHERE s.sent_at IS NULL AND s.dead_at IS NULL AND s.next_attempt_at <= now()
		        AND (s.lease_expires_at IS NULL OR s.lease_expires_at <= now())
		      ORDER BY s.next_attempt_at LIMIT 1 FOR UPDATE OF s SKIP LOCKED) c
		WHERE q.id = c.id RETURNING q.id, q.agent_id, q.feed_id, q.attempts`,
		m.dlv.owner, m.dlv.opts.Lease.Seconds()).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pacts: claim a webhook send: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
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
		return m.settleSend(ctx, s, `dead_at = now()`, "the agent's webhook is off or no longer its delivery mode")
	}
	evs, stopped, err := m.sendable(ctx, s)
	if err != nil {
		return err
	}
	if stopped != "" {
		return m.settleSend(ctx, s, `dead_at = now()`, stopped)
	}
	dest, n, derr := m.webhookCall(d, evs)
	if derr == nil {
		derr = m.post(ctx, dest, n)
	}
	if derr == nil {
		return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if err := m.settleSendTx(ctx, tx, s, `sent_at = now()`, ""); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE pact_delivery SET failures = 0 WHERE agent_id = ? AND failures > 0`, s.AgentID)
			return err
		})
	}
	why := errs.Public(derr).Message
	if s.Attempts <= len(m.dlv.opts.Retries) {
		wait := m.dlv.opts.Retries[s.Attempts-1]
		return m.settleSend(ctx, s, fmt.Sprintf(`next_attempt_at = now() + make_interval(secs => %f)`, wait.Seconds()), why)
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

// settleSend ends this process's lease on s with set (a fixed assignment).
func (m *Module) settleSend(ctx context.Context, s *sendRow, set, lastError string) error {
	return m.settleSendTx(ctx, m.db, s, set, lastError)
}

func (m *Module) settleSendTx(ctx context.Context, tx bun.IDB, s *sendRow, set, lastError string) error {
	var last *string
	if lastError != "" {
		last = &lastError
	}
	_, err := tx.ExecContext(ctx, `UPDATE pact_sends SET `+set+`, last_error = ?, lease_expires_at = NULL
		WHERE id = ? AND lease_owner = ? AND sent_at IS NULL AND dead_at IS NULL`, last, s.ID, m.dlv.owner)
	if err != nil {
		return fmt.Errorf("pacts: settle webhook send %d: %w", s.ID, err)
	}
	return nil
}

// failSend settles s as failed for good and counts the failure; the one
// that reaches Options.SwitchOff switches the webhook off, drops the
// agent's other pending sends and tells its person, in one transaction.
func (m *Module) failSend(ctx context.Context, s *sendRow, d *deliveryRow, ev *streamEvent, why string) error {
	return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := m.settleSendTx(ctx, tx, s, `dead_at = now()`, why); err != nil {
			return err
		}
		var failures []int
		if err := tx.NewRaw(`UPDATE pact_delivery SET failures = failures + 1 WHERE agent_id = ? AND disabled_at IS NULL
			AND mode = 'webhook' RETURNING failures`, s.AgentID).Scan(ctx, &failures); err != nil {
			return fmt.Errorf("pacts: count a failed webhook send of %s: %w", s.AgentID, err)
		}
		if len(failures) == 0 || failures[0] < m.dlv.opts.SwitchOff {
			return nil
		}
		return m.switchOff(ctx, tx, d, ev, failures[0])
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
	if _, err := tx.ExecContext(ctx, `UPDATE pact_delivery SET disabled_at = now(), stuck = ? WHERE agent_id = ?`, sentence, d.AgentID); err != nil {
		return fmt.Errorf("pacts: switch off the webhook of %s: %w", d.AgentID, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE pact_sends SET dead_at = now(), last_error = 'the webhook was switched off'
		WHERE agent_id = ? AND sent_at IS NULL AND dead_at IS NULL`, d.AgentID); err != nil {
		return fmt.Errorf("pacts: drop the pending sends of %s: %w", d.AgentID, err)
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
