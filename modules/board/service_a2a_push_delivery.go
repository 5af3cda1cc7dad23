package board

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// Delivering A2A push notifications (docs/a2a.md, "Push notifications"),
// by state: a config is due when its task changed or its thread grew
// since the receiver last acknowledged a delivery (store_a2a_push.go,
// pushDue). The worker of every board process claims due configs one at a
// time, reads the task as the agent through the kernel's pipeline (so a
// stopped agent gets nothing: the read is refused), and posts it, as a
// StreamResponse, through the webhook notifier plugin, which checks the
// address on every dial and signs per Standard Webhooks. A success records
// what was delivered; a failure is tried again after Options.PushRetries,
// then the config is dead, with the reason. A change is never lost while
// retries remain: the config stays due until a delivery that carries it
// is acknowledged.

// pushWorker delivers every due config, then sleeps until a task changes
// or gets a message, a config is made here, the next retry is due, or
// PushTick passes.
func (m *Module) pushWorker(ctx context.Context) error {
	var wake <-chan struct{}
	if m.events != nil {
		sub := m.events.Subscribe(func(ev events.Event) bool {
			return ev.Kind == events.KindTaskState || ev.Kind == events.KindMessage
		})
		defer sub.Close()
		wake = sub.C()
	}
	p := m.push
	for ctx.Err() == nil {
		if err := m.deliverDuePushes(ctx); err != nil && ctx.Err() == nil {
			p.logger.Warn("A2A push notifications wait for the next round", "error", err)
		}
		// A failed read is nil, as none due: the tick or a wake brings the
		// next round, whose database trouble the warning above reports.
		next, _ := p.st.nextPushIn(ctx, p.db)
		t := time.NewTimer(pushWait(p.opts.PushTick, next))
		select {
		case <-ctx.Done():
		case <-wake:
		case <-p.added:
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

// pushWait is how long the push worker sleeps: until the next config is
// due (next, nil when none is), at least 10 ms (a config another board is
// claiming at this instant is looked at again shortly, never in a tight
// loop) and at most tick.
func pushWait(tick time.Duration, next *time.Duration) time.Duration {
	if next == nil {
		return tick
	}
	return min(tick, max(*next, 10*time.Millisecond))
}

// deliverDuePushes delivers every config due now, one after another.
// Delivery failures are recorded on the configs; only the database's
// errors are returned.
func (m *Module) deliverDuePushes(ctx context.Context) error {
	p := m.push
	if !p.served() {
		return nil
	}
	for ctx.Err() == nil {
		c, err := p.st.claimPush(ctx, p.db, p.opts.PushLease)
		if err != nil || c == nil {
			return err
		}
		if err := m.deliverPush(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// deliverPush reads c's task as c's agent, posts it and settles c.
func (m *Module) deliverPush(ctx context.Context, c *pushClaim) error {
	th, why := m.pushRead(ctx, c)
	if why == "" {
		why = m.pushPost(ctx, c, th)
	}
	p := m.push
	return p.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		switch {
		case why == "":
			return p.st.pushDelivered(ctx, tx, c, th.Task.Seq)
		case c.Attempts <= len(p.opts.PushRetries):
			return p.st.pushLater(ctx, tx, c, p.opts.PushRetries[c.Attempts-1], why)
		}
		p.logger.Warn("an A2A push config is dead: its retries ran out", "config", c.ID, "agent", c.AgentID, "task", c.TaskID,
			"reason", why)
		return p.st.pushDead(ctx, tx, c, why)
	})
}

// pushRead reads c's task as its agent, through the pipeline: the agent's
// standing, its root mandate and its sight of the task are checked as for
// any of its calls, and the read is in the log. why says why nothing can
// be delivered.
func (m *Module) pushRead(ctx context.Context, c *pushClaim) (th threadOut, why string) {
	a, err := m.ident.GetAgent(ctx, m.db, c.AgentID, c.OrgID)
	if err != nil {
		return th, "the board could not read the agent: " + errs.Public(err).Message
	}
	if a == nil || a.RootMandateID == nil {
		return th, fmt.Sprintf("agent %s has no root mandate: it acts under none", c.AgentID)
	}
	caller := &a2aCaller{agent: a.ID, org: a.OrgID, root: a.RootMandateID.String(), projects: a.Projects}
	th, err = m.a2aRead(ctx, caller, c.TaskID)
	if err != nil {
		return th, fmt.Sprintf("agent %s may not read task %s now: %s", c.AgentID, c.TaskID, errs.Public(err).Message)
	}
	return th, ""
}

// pushPost posts th to c's receiver; why says why it did not take it.
func (m *Module) pushPost(ctx context.Context, c *pushClaim, th threadOut) (why string) {
	p := m.push
	dest, n, err := p.delivery(ctx, c, th)
	if err != nil {
		return errs.Public(err).Message
	}
	plugin := p.plugin()
	if plugin == nil {
		return "this board runs no " + p.opts.WebhookNotifier + " notifier plugin now"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := plugin.Deliver(ctx, dest, n); err != nil {
		return errs.Public(err).Message
	}
	return ""
}

// delivery is the plugin's destination and notification for th: the task
// as c's agent sees it, as a StreamResponse, to c's URL, signed with the
// agent's signing key. Its webhook-id is the same on every attempt that
// carries the same state of the task.
func (p *pushService) delivery(ctx context.Context, c *pushClaim, th threadOut) (notifier.Destination, notifier.Notification, error) {
	v, err := p.view(c.pushRow)
	if err != nil {
		return notifier.Destination{}, notifier.Notification{}, errs.E(errs.InvalidRequest,
			"the config's values no longer open: delete it and create it again")
	}
	key, err := p.signingKey(ctx, c.AgentID, c.OrgID)
	if err != nil {
		return notifier.Destination{}, notifier.Notification{}, err
	}
	d := pushDraft{url: v.URL, token: v.Token}
	if v.Authentication != nil {
		d.scheme, d.credentials = v.Authentication.Scheme, v.Authentication.Credentials
	}
	t := a2aTask(th, c.AgentID, nil)
	data, err := json.Marshal(a2a.StreamResponse{Task: &t})
	if err != nil {
		return notifier.Destination{}, notifier.Notification{}, err
	}
	id := "a2a_" + c.ID + "_" + strconv.FormatInt(th.Task.Seq, 10) + "_" + strconv.Itoa(len(th.Messages))
	return notifier.Destination{URL: d.url, Secret: key, Options: d.options()},
		notifier.Notification{ID: c.ID, IdempotencyKey: id, Kind: "a2a_push", Title: th.Task.Title, OrgID: c.OrgID,
			ProjectID: th.Task.ProjectID, TaskID: c.TaskID, AgentID: c.AgentID, CreatedAt: time.Now(), Data: data}, nil
}
