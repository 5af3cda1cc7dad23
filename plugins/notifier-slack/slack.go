package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// deliverTimeout bounds one post (docs/specs/behavior.md §8.6): a slow Slack must not
// hold a delivery worker.
const deliverTimeout = 10 * time.Second

// version is reported in Capabilities; bump it when the card layout changes.
const version = "1.1.0"

// hookURL is the only destination shape accepted: a Slack incoming webhook.
// Anything else would make the board post on an org owner's behalf to an
// arbitrary host.
var hookURL = regexp.MustCompile(`^https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{1,200}$`)

// Options configure a Slack notifier; the zero value is production.
type Options struct {
	// AdminUIURL is the Admin UI's base URL (PACT_ADMIN_UI_URL), used for a
	// brief's buttons when the notification carries no links of its own.
	AdminUIURL string
	// APIBase, when set, replaces https://hooks.slack.com in the URL actually
	// posted to (PACT_SLACK_API_BASE). Tests only: destinations are still
	// checked against hooks.slack.com.
	APIBase string
	// Client posts the cards; nil means one with a 10 s timeout that follows
	// no redirects.
	Client *http.Client
}

// Slack delivers notifications to Slack incoming webhooks as Block Kit cards.
type Slack struct {
	cat     *catalog
	adminUI string
	apiBase string
	client  *http.Client
}

var _ notifier.Notifier = (*Slack)(nil)

// New returns a Slack notifier.
func New(opts Options) *Slack {
	c := opts.Client
	if c == nil {
		c = &http.Client{
			Timeout: deliverTimeout,
			// A webhook that redirects is misconfigured; following it would
			// post the card somewhere nobody checked.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return &Slack{cat: mustCatalog(), adminUI: opts.AdminUIURL, apiBase: strings.TrimRight(opts.APIBase, "/"), client: c}
}

// Capabilities reports that every kind is accepted and briefs are rendered
// as structured cards.
func (s *Slack) Capabilities(ctx context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "notifier-slack", Version: version, Structured: true}, nil
}

// PrepareDestination accepts only https://hooks.slack.com/services/… URLs
// without a query; anything else is errs.InvalidRequest. Slack webhooks carry
// their secret in the path, so the destination needs no Secret.
func (s *Slack) PrepareDestination(ctx context.Context, d notifier.Destination) (*notifier.Destination, error) {
	d.URL = strings.TrimSpace(d.URL)
	if err := checkHook(d.URL); err != nil {
		return nil, err
	}
	return &d, nil
}

// checkHook refuses a URL that is not a Slack incoming webhook. The message
// never repeats the URL: its path is the webhook's secret.
func checkHook(u string) error {
	if !hookURL.MatchString(u) {
		return errs.E(errs.InvalidRequest,
			"a Slack destination must be an incoming webhook URL https://hooks.slack.com/services/… without a query")
	}
	return nil
}

// Deliver posts n's card to d. A timeout, a network failure, 429 or 5xx is
// errs.Unavailable (worth retrying); any other refusal is errs.InvalidRequest
// (e.g. 404 no_service for a deleted webhook). Either message keeps Slack's
// answer, such as "slack answered 400: invalid_blocks".
func (s *Slack) Deliver(ctx context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	if err := checkHook(d.URL); err != nil {
		return nil, err
	}
	body, err := json.Marshal(Card(n, s.adminUI, s.cat))
	if err != nil {
		return nil, errs.Wrap(err, "encode the Slack card")
	}
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.target(d.URL), bytes.NewReader(body))
	if err != nil {
		return nil, errs.Wrap(err, "build the Slack request")
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, transportError(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	text := clip(strings.Join(strings.Fields(string(answer)), " "), 200)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return &notifier.Receipt{Status: resp.StatusCode, Detail: text}, nil
	}
	code := errs.InvalidRequest
	if retryable(resp.StatusCode) {
		code = errs.Unavailable
	}
	return nil, errs.E(code, "slack answered %d: %s", resp.StatusCode, text)
}

// target is the URL actually posted to: d's URL, or its path under APIBase
// when a test set one.
func (s *Slack) target(hook string) string {
	if s.apiBase == "" {
		return hook
	}
	return s.apiBase + strings.TrimPrefix(hook, "https://hooks.slack.com")
}

// retryable reports whether a receiver's status is worth another attempt.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// transportError turns a failed post into errs.Unavailable. The *url.Error
// wrapper is dropped because it repeats the webhook URL, whose path is the
// secret, and error messages end up in the outbox and the logs.
func transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return errs.E(errs.Unavailable, "slack did not answer in time (limit %s)", deliverTimeout)
	}
	return errs.E(errs.Unavailable, "slack could not be reached: %s", err.Error())
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
