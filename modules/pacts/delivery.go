package pacts

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/sdk/notifier"
)

// Delivery modes (docs/pacts.md, "Delivery without polling").
const (
	ModeStream = "stream"
	// ModeChannel is mode stream held by pact-channel for a Claude Code
	// session (docs/hooks.md, "The channel"): the same held connection,
	// recorded apart so that people see how the agent listens.
	ModeChannel = "channel"
	ModeWebhook = "webhook"
	ModeNone    = "none"
)

// StreamPath is where an agent holds its pact stream.
const StreamPath = "/pacts/stream"

// Notifiers finds the notifier plugins the operator runs, by their name in
// PACT_PLUGINS; cmd/pact-board passes its plugin host. It is the same seam
// modules/notify takes (modules do not import each other).
type Notifiers interface {
	Notifier(name string) (notifier.Notifier, error)
}

// Options configure the pacts module's delivery. Zero fields take the
// defaults shown.
type Options struct {
	// Notifiers are the notifier plugins; nil means none run, so webhook
	// mode is refused as unavailable.
	Notifiers Notifiers
	// WebhookNotifier is the plugin that signs and posts webhooks ("webhook").
	WebhookNotifier string
	// Retries are the waits after each failed attempt of one webhook send;
	// once they are spent the send has failed (10 s, 20 s, 40 s, 80 s,
	// 150 s: about five minutes).
	Retries []time.Duration
	// SwitchOff is how many failed sends in a row switch a webhook off (5).
	SwitchOff int
	// Lease is how long a claimed send stays with its worker (1 min).
	Lease time.Duration
	// Tick is the longest an idle delivery worker sleeps without a wake
	// (30 s), and StreamRecheck how often a stream reads the feed without
	// one (15 s): safety nets under the events hub.
	Tick, StreamRecheck time.Duration
	// StreamHeartbeat is how often an idle pact stream writes a heartbeat
	// and checks its agent's token again (25 s): under the 30 s at which
	// common proxies close an idle connection.
	StreamHeartbeat time.Duration
	// NudgeEvery is how often the nudge worker looks for unread messages
	// (the package's NudgeEvery, a minute).
	NudgeEvery time.Duration
	// Seal seals webhook addresses and secrets; Register uses the board's
	// keyring.
	Seal *seal.Box
}

// delivery is what the module keeps for delivering pact activity.
type delivery struct {
	opts   Options
	events *events.Hub
	logger hclog.Logger
	owner  string // this process's lease owner prefix
	// streams caps the pact streams each agent holds in this process.
	streams streamSlots
}

func firstOr(opts []Options) Options {
	if len(opts) > 0 {
		return opts[0]
	}
	return Options{}
}

func (o *Options) defaults() {
	if o.WebhookNotifier == "" {
		o.WebhookNotifier = "webhook"
	}
	if len(o.Retries) == 0 {
		o.Retries = []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 150 * time.Second}
	}
	if o.SwitchOff == 0 {
		o.SwitchOff = 5
	}
	if o.Lease == 0 {
		o.Lease = time.Minute
	}
	if o.Tick == 0 {
		o.Tick = 30 * time.Second
	}
	if o.StreamRecheck == 0 {
		o.StreamRecheck = 15 * time.Second
	}
	if o.StreamHeartbeat == 0 {
		o.StreamHeartbeat = 25 * time.Second
	}
	if o.NudgeEvery == 0 {
		o.NudgeEvery = NudgeEvery
	}
}

// registerDelivery adds set_pact_delivery, the stream, the webhook worker
// and the Admin API's wake operation.
func (m *Module) registerDelivery(h *kernel.Host) error {
	d := &m.dlv
	d.opts.defaults()
	m.svc.dlv = &d.opts
	d.events, d.logger = h.Events(), h.Logger()
	if d.logger == nil {
		d.logger = hclog.NewNullLogger()
	}
	if d.opts.Seal == nil {
		if h.Mandates() == nil {
			return fmt.Errorf("pacts: delivery needs the board's keyring to seal webhook secrets")
		}
		d.opts.Seal = seal.New(h.Mandates().Keys())
	}
	host, _ := os.Hostname()
	d.owner = fmt.Sprintf("%s/%d/%p", host, os.Getpid(), d)
	if err := m.addDeliveryTool(h); err != nil {
		return err
	}
	h.Handle("GET "+StreamPath, m.streamHandler())
	if err := h.Channel(kernel.Channel{Name: "pact-stream", Audience: kernel.AgentAudience, Routes: []string{"GET " + StreamPath},
		Summary: "server-sent events of what others write in the pacts the agent sits in"}); err != nil {
		return err
	}
	if err := h.Channel(kernel.Channel{Name: "pact-webhook", Audience: kernel.AgentAudience,
		Summary: "signed webhook posts of what others write in the pacts the agent sits in"}); err != nil {
		return err
	}
	h.Worker("webhooks", m.deliverLoop)
	h.Worker("reseal", m.resealAtStart)
	m.registerWakeOp(h)
	return nil
}

// the places webhook values are sealed for (core/seal): per agent, so a
// value copied to another agent's row does not open.
func urlPlace(agent string) string    { return "pact_delivery.url/" + agent }
func secretPlace(agent string) string { return "pact_delivery.secret/" + agent }

// waitFor sleeps until d passes, a wake arrives on sub, or ctx ends.
func waitFor(ctx context.Context, sub *events.Subscription, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-sub.C():
	case <-t.C:
	}
}
