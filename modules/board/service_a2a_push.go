package board

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/go-hclog"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// A2A push notifications (docs/a2a.md, "Push notifications"): the rules of
// an agent's push configs, and of its signing key. The JSON-RPC methods
// (a2a_push.go) are adapters over these; delivery is
// service_a2a_push_delivery.go.

// Options configure the board module. Zero fields take the defaults shown.
type Options struct {
	// Notifiers are the notifier plugins the operator runs (cmd/pact-board
	// passes its plugin host); nil means none, so the board pushes no A2A
	// notifications and its cards say so.
	Notifiers Notifiers
	// WebhookNotifier is the plugin that posts them ("webhook").
	WebhookNotifier string
	// PushRetries are the waits after each failed delivery of a config; once
	// they are spent the config is dead (5 s, 30 s, 2 min, 10 min).
	PushRetries []time.Duration
	// PushTick is the longest the push worker sleeps without a wake (30 s),
	// PushLease how long a config claimed for a delivery stays with its
	// board (1 min).
	PushTick, PushLease time.Duration
	// StreamBeat is how often an idle A2A stream sends a comment, so
	// proxies keep it open (25 s).
	StreamBeat time.Duration
}

// Notifiers finds the notifier plugins by their name in PACT_PLUGINS: the
// seam modules/pacts and modules/notify take (modules do not import each
// other).
type Notifiers interface {
	Notifier(name string) (notifier.Notifier, error)
}

func (o *Options) defaults() {
	if o.WebhookNotifier == "" {
		o.WebhookNotifier = "webhook"
	}
	if len(o.PushRetries) == 0 {
		o.PushRetries = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute}
	}
	if o.PushTick == 0 {
		o.PushTick = 30 * time.Second
	}
	if o.PushLease == 0 {
		o.PushLease = time.Minute
	}
	if o.StreamBeat == 0 {
		o.StreamBeat = 25 * time.Second
	}
}

const (
	// maxPushConfigs is how many push configs an agent may hold on one task.
	maxPushConfigs = 5
	// PushSignaturesURI names the extension of the extended agent card
	// that hands the agent its signing key (docs/a2a.md, "Push
	// notifications").
	PushSignaturesURI = "https://pactboard.dev/a2a/push-signatures/v1"
	// maxPushToken bounds a token and credentials.
	maxPushToken = 1024
)

var (
	// authScheme is an HTTP authentication scheme: an RFC 9110 token.
	authScheme = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
	// headerText is visible ASCII with inner spaces: what a header carries.
	headerText = regexp.MustCompile(`^[!-~]([ !-~]*[!-~])?$`)
)

// pushService holds the rules of push configs: what a config may say, how
// many a task holds, who sees one, and the agent's signing key.
type pushService struct {
	db     *db.DB
	st     store
	box    *seal.Box
	opts   Options
	logger hclog.Logger
	// added wakes this board's push worker when a config is made: its
	// first delivery is due at once, and no change of the task may follow
	// to wake the worker (a config made after the change that posted the
	// task, or on a task that does not change).
	added chan struct{}
}

func newPushService(h *kernel.Host, opts Options) *pushService {
	opts.defaults()
	return &pushService{db: h.DB(), st: store{db: h.DB()}, box: seal.New(h.Mandates().Keys()), opts: opts, logger: h.Logger(),
		added: make(chan struct{}, 1)}
}

// the places a config's values and an agent's signing key are sealed for
// (core/seal): a value copied to another row does not open.
func pushPlace(col, id string) string  { return "a2a_push_configs." + col + "/" + id }
func signingPlace(agent string) string { return "a2a_push_signing.signing_key/" + agent }

// plugin is the webhook notifier that posts; nil when the board runs none.
func (p *pushService) plugin() notifier.Notifier {
	if p.opts.Notifiers == nil {
		return nil
	}
	n, err := p.opts.Notifiers.Notifier(p.opts.WebhookNotifier)
	if err != nil {
		return nil
	}
	return n
}

// served reports whether the board pushes notifications: it runs the
// webhook notifier.
func (p *pushService) served() bool { return p.plugin() != nil }

// notServed is PushNotificationNotSupported, as the specification asks of
// an agent whose card says it does not push (docs/specs/a2a.md).
func (p *pushService) notServed() *a2a.Error {
	return a2a.Errorf(a2a.CodePushNotSupported, "this board runs no %s notifier plugin, so it pushes no notifications "+
		"(its agent card says pushNotifications: false): follow the task with SubscribeToTask", p.opts.WebhookNotifier)
}

// pushDraft is a config checked and ready to store, its values in clear.
type pushDraft struct{ url, token, scheme, credentials string }

// options are the webhook plugin's destination options for d: the A2A
// payload as the body, and the authentication the config asks for
// (Authorization when it names a scheme, else its token), as A2A clients
// expect (docs/specs/a2a.md, "Push notifications").
func (d pushDraft) options() map[string]string {
	o := map[string]string{"body": "data", "content-type": "application/a2a+json"}
	switch {
	case d.scheme != "":
		o["authorization"] = d.scheme + " " + d.credentials
	case d.token != "":
		o["notification-token"] = d.token
	}
	return o
}

// check reads a config a client asks for; field prefixes the names of its
// fields in refusals ("" for CreateTaskPushNotificationConfig's params).
// The URL is the webhook plugin's to check (https, or http where the
// operator allows private addresses; a host that resolves to public
// addresses only). Refusals are the specification's errors.
func (p *pushService) check(ctx context.Context, cfg *a2a.TaskPushNotificationConfig, field string) (pushDraft, error) {
	plugin := p.plugin()
	if plugin == nil {
		return pushDraft{}, p.notServed()
	}
	bad := func(name, format string, args ...any) error {
		return a2a.Errorf(a2a.CodeInvalidParams, format, args...).WithField(field+name, "see the message")
	}
	d := pushDraft{url: strings.TrimSpace(cfg.URL), token: cfg.Token}
	switch {
	case cfg.ID != "":
		return d, bad("id", "the board names each push config: leave id out, and the answer carries the id it gave")
	case d.url == "":
		return d, bad("url", "the config has no url: the https:// address the board posts the task's changes to")
	case d.token != "" && (len(d.token) > maxPushToken || !headerText.MatchString(d.token)):
		return d, bad("token", "the token must be visible ASCII (inner spaces allowed), at most %d characters: the board "+
			"sends it as the header X-A2A-Notification-Token", maxPushToken)
	}
	if a := cfg.Authentication; a != nil {
		d.scheme, d.credentials = a.Scheme, a.Credentials
		switch {
		case !authScheme.MatchString(d.scheme):
			return d, bad("authentication.scheme", "authentication.scheme must be an HTTP authentication scheme such as Bearer or Basic")
		case d.credentials == "":
			return d, bad("authentication.credentials", "authentication has no credentials: the board sends Authorization: "+
				"%s <credentials>; give them, or leave authentication out and give a token", d.scheme)
		case len(d.credentials) > maxPushToken || !headerText.MatchString(d.credentials):
			return d, bad("authentication.credentials", "authentication.credentials must be visible ASCII (inner spaces "+
				"allowed), at most %d characters", maxPushToken)
		}
	}
	dest, err := plugin.PrepareDestination(ctx, notifier.Destination{URL: d.url, Options: d.options()})
	if e, ok := errs.As(err); ok && e.Code == errs.InvalidRequest {
		return d, bad("url", "%s", e.Message)
	} else if ok && e.Code == errs.Unavailable {
		return d, a2a.Errorf(a2a.CodeInternal, "%s; try again", e.Message)
	} else if err != nil {
		return d, err
	}
	d.url = dest.URL
	return d, nil
}

// room refuses a config on task when agent holds maxPushConfigs there.
func (p *pushService) room(ctx context.Context, tx bun.IDB, agent, task string) error {
	n, err := p.st.countPushes(ctx, tx, agent, task)
	if err != nil {
		return err
	}
	if n >= maxPushConfigs {
		return a2a.Errorf(a2a.CodeRefused, "task %s has %d push configs of yours, the board's limit: delete one "+
			"(DeleteTaskPushNotificationConfig) before you add another", task, n).WithReason(a2a.ErrorDomain, string(errs.LimitExceeded), nil)
	}
	return nil
}

// add stores d as a config of c's on task, which c can see, and makes c's
// signing key if it has none. It is due at once: its first delivery is
// the task as it stands.
func (p *pushService) add(ctx context.Context, c *a2aCaller, task string, d pushDraft) (a2a.TaskPushNotificationConfig, error) {
	r := pushRow{ID: uuid.NewString(), OrgID: c.org, AgentID: c.agent, TaskID: task}
	var err error
	if r.URL, err = p.box.Seal(d.url, pushPlace("url", r.ID)); err != nil {
		return a2a.TaskPushNotificationConfig{}, err
	}
	if d.token != "" {
		if r.Token, err = p.sealed(d.token, pushPlace("token", r.ID)); err != nil {
			return a2a.TaskPushNotificationConfig{}, err
		}
	}
	if d.scheme != "" {
		r.AuthScheme = &d.scheme
		if r.Credentials, err = p.sealed(d.credentials, pushPlace("credentials", r.ID)); err != nil {
			return a2a.TaskPushNotificationConfig{}, err
		}
	}
	err = p.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := p.st.lockPushes(ctx, tx, c.agent, task); err != nil {
			return err
		}
		if err := p.room(ctx, tx, c.agent, task); err != nil {
			return err
		}
		if _, err := p.signingKeyIn(ctx, tx, c.agent, c.org); err != nil {
			return err
		}
		r.CreatedAt, err = p.st.insertPush(ctx, tx, r)
		return err
	})
	if err != nil {
		return a2a.TaskPushNotificationConfig{}, err
	}
	select {
	case p.added <- struct{}{}:
	default: // the worker has a wake pending already
	}
	return p.view(r)
}

func (p *pushService) sealed(v, place string) (*string, error) {
	s, err := p.box.Seal(v, place)
	return &s, err
}

// notFound is the refusal of a config agent does not hold on task.
func notFound(task, id string) error {
	return a2a.Errorf(a2a.CodeTaskNotFound, "task %s has no push config %q of yours: ListTaskPushNotificationConfigs "+
		"names the ones you hold", task, id)
}

// get is agent's config id on task.
func (p *pushService) get(ctx context.Context, agent, task, id string) (a2a.TaskPushNotificationConfig, error) {
	if uuid.Validate(id) != nil {
		return a2a.TaskPushNotificationConfig{}, notFound(task, id)
	}
	r, err := p.st.push(ctx, p.db, agent, task, id)
	if err != nil {
		return a2a.TaskPushNotificationConfig{}, err
	}
	if r == nil {
		return a2a.TaskPushNotificationConfig{}, notFound(task, id)
	}
	return p.view(*r)
}

// list is agent's configs on task, oldest first: a page of pageSize (all
// when 0) from the offset token names ("" for the first).
func (p *pushService) list(ctx context.Context, agent, task string, pageSize int32, token string) (a2a.ListTaskPushNotificationConfigsResponse, error) {
	offset := 0
	if token != "" {
		n, err := strconv.Atoi(token)
		if err != nil || n < 0 || n > maxPushConfigs {
			return a2a.ListTaskPushNotificationConfigsResponse{}, a2a.Errorf(a2a.CodeInvalidParams,
				"pageToken %q is none the board gave: pass nextPageToken as it came, or leave it out", token).WithField("pageToken", "as given")
		}
		offset = n
	}
	if pageSize < 0 {
		return a2a.ListTaskPushNotificationConfigsResponse{}, a2a.Errorf(a2a.CodeInvalidParams,
			"pageSize is %d: leave it out for all, or give how many to answer", pageSize).WithField("pageSize", "0 or more")
	}
	limit := maxPushConfigs
	if pageSize > 0 && int(pageSize) < limit {
		limit = int(pageSize)
	}
	rows, err := p.st.pushes(ctx, p.db, agent, task, offset, limit+1)
	if err != nil {
		return a2a.ListTaskPushNotificationConfigsResponse{}, err
	}
	out := a2a.ListTaskPushNotificationConfigsResponse{Configs: []a2a.TaskPushNotificationConfig{}}
	if len(rows) > limit {
		rows, out.NextPageToken = rows[:limit], strconv.Itoa(offset+limit)
	}
	for _, r := range rows {
		v, err := p.view(r)
		if err != nil {
			return out, err
		}
		out.Configs = append(out.Configs, v)
	}
	return out, nil
}

// remove deletes agent's config id on task. Deleting one that is not
// there does the same: nothing (the specification asks it be idempotent).
func (p *pushService) remove(ctx context.Context, agent, task, id string) error {
	if uuid.Validate(id) != nil {
		return nil
	}
	return p.st.deletePush(ctx, p.db, agent, task, id)
}

// signingKey is agent's signing key in clear, made when it has none yet.
func (p *pushService) signingKey(ctx context.Context, agent, org string) (string, error) {
	return p.signingKeyIn(ctx, p.db, agent, org)
}

func (p *pushService) signingKeyIn(ctx context.Context, tx bun.IDB, agent, org string) (string, error) {
	stored, err := p.st.pushSecret(ctx, tx, agent)
	if err != nil {
		return "", err
	}
	if stored == "" {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return "", err
		}
		sealed, err := p.box.Seal("whsec_"+base64.StdEncoding.EncodeToString(key), signingPlace(agent))
		if err != nil {
			return "", err
		}
		if stored, err = p.st.addPushSecret(ctx, tx, agent, org, sealed); err != nil {
			return "", err
		}
	}
	return p.box.Open(stored, signingPlace(agent))
}

// view is r as the agent reads it: its values opened.
func (p *pushService) view(r pushRow) (a2a.TaskPushNotificationConfig, error) {
	v := a2a.TaskPushNotificationConfig{ID: r.ID, TaskID: r.TaskID}
	var err error
	if v.URL, err = p.box.Open(r.URL, pushPlace("url", r.ID)); err != nil {
		return v, err
	}
	if r.Token != nil {
		if v.Token, err = p.box.Open(*r.Token, pushPlace("token", r.ID)); err != nil {
			return v, err
		}
	}
	if r.AuthScheme != nil && r.Credentials != nil {
		v.Authentication = &a2a.AuthenticationInfo{Scheme: *r.AuthScheme}
		if v.Authentication.Credentials, err = p.box.Open(*r.Credentials, pushPlace("credentials", r.ID)); err != nil {
			return v, err
		}
	}
	return v, nil
}

// reseal seals again every A2A value (sealedA2A) not sealed under the
// active key, so that retiring an old key from the keyring loses none; it
// returns how many it sealed again.
func (p *pushService) reseal(ctx context.Context) (int, error) {
	values, err := p.st.sealedA2A(ctx, p.db)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range values {
		if !p.box.Stale(v.Value) {
			continue
		}
		place := pushPlace(v.Col, v.Row)
		switch v.Table {
		case "a2a_push_signing":
			place = signingPlace(v.Row)
		case "a2a_remotes":
			place = remotePlace(v.Row)
		}
		again, err := p.box.Reseal(v.Value, place)
		if err != nil {
			p.logger.Warn("a sealed A2A value does not open: it stays as it is", "table", v.Table, "row", v.Row, "error", err)
			continue
		}
		if err := p.st.resealA2A(ctx, p.db, v, again); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
