package kernel

import (
	"context"
	"sync"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// SlackWebhooks is what the module that delivers notifications (notify)
// does with an organization's Slack webhook URL, a secret only it reads
// back: the organization's settings (people) set it and show its hint
// through here.
type SlackWebhooks interface {
	// SetSlackWebhook seals url for org and stores it in tx; "" removes it.
	SetSlackWebhook(ctx context.Context, tx bun.IDB, org, url string) error
	// SlackHint is "…" and the URL's last 4 characters, or a note saying it
	// no longer opens; nil when org has none.
	SlackHint(ctx context.Context, tx bun.IDB, org string) (*string, error)
}

// slackWebhooks forwards to the module that provides them.
type slackWebhooks struct {
	mu       sync.Mutex
	provider SlackWebhooks
}

func (s *slackWebhooks) get() (SlackWebhooks, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider == nil {
		return nil, errs.E(errs.Unavailable, "no module keeps Slack webhooks on this board")
	}
	return s.provider, nil
}

func (s *slackWebhooks) SetSlackWebhook(ctx context.Context, tx bun.IDB, org, url string) error {
	p, err := s.get()
	if err != nil {
		return err
	}
	return p.SetSlackWebhook(ctx, tx, org, url)
}

func (s *slackWebhooks) SlackHint(ctx context.Context, tx bun.IDB, org string) (*string, error) {
	p, err := s.get()
	if err != nil {
		return nil, err
	}
	return p.SlackHint(ctx, tx, org)
}

// ProvideSlackWebhooks makes w the keeper of Slack webhooks; call it at
// start-up.
func (h *Host) ProvideSlackWebhooks(w SlackWebhooks) {
	h.k.seams.slack.mu.Lock()
	defer h.k.seams.slack.mu.Unlock()
	h.k.seams.slack.provider = w
}

// SlackWebhooks returns the keeper of Slack webhooks, asked at call time;
// with none registered a call is refused as unavailable.
func (h *Host) SlackWebhooks() SlackWebhooks { return h.k.seams.slack }
