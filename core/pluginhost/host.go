// Package pluginhost runs the board's plugins: the separate processes,
// built against sdk/, that deliver notifications (sdk/notifier), mint
// outside credentials (sdk/credential) and verify access tokens
// (sdk/authissuer).
//
// The operator lists the plugins in PACT_PLUGINS (see [ParseCatalog] and
// docs/plugins.md), and PACT_AUTH_ISSUER, PACT_SLACK_WEBHOOK_URL and
// PACT_EXPORT_FORMAT add the bundled first-party plugins, pinned by the
// manifest make build embeds in pact-board ([Catalog]). The host launches each binary over go-plugin with gRPC
// only, AutoMTLS and none of the board's environment; refuses a credential or
// authissuer binary whose SHA-256 is not the pinned one; checks that
// plugins answer; restarts a crashed one with backoff; puts a deadline on
// every call; and kills them all on Close. Plugin logs go through the
// board's hclog logger named plugin.<name>.
//
// Callers get the SDK interfaces back ([Host.Notifier], [Host.Credential],
// [Host.Issuer]). A plugin that is down, crashed mid-call or does not answer
// in time is an errs.Unavailable error from those, never a crash of the
// board.
package pluginhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// Options tune a [Host]. Zero fields take the defaults shown.
type Options struct {
	// Dir is PACT_PLUGIN_DIR, where relative binary paths are looked up
	// ("bin/plugins").
	Dir    string
	Logger hclog.Logger // nil discards logs
	// CallTimeout is the deadline of every plugin call (10 s).
	CallTimeout time.Duration
	// StartTimeout bounds launching a plugin up to its handshake (10 s).
	StartTimeout time.Duration
	// HealthInterval is how often running plugins are pinged and dead ones
	// restarted (15 s).
	HealthInterval time.Duration
	// BackoffMin and BackoffMax bound the wait between start attempts of a
	// plugin that keeps failing (1 s doubling up to 1 min). The first
	// restart after a healthy run is immediate.
	BackoffMin, BackoffMax time.Duration
	// Getenv resolves ${NAME} in the catalog's env values (os.Getenv).
	Getenv func(string) string
	// Metrics times every plugin call (nil: not timed).
	Metrics *metrics.Metrics
}

// Host runs the plugins of one catalog. Its methods are safe for
// concurrent use.
type Host struct {
	opts   Options
	logger hclog.Logger
	procs  map[string]*proc
	order  []string

	mu      sync.Mutex
	started bool
	closed  bool
	stop    context.CancelFunc
	done    chan struct{}
}

// FromConfig builds the host of the configured catalog (PACT_PLUGINS,
// PACT_PLUGIN_DIR, PACT_PLUGIN_TIMEOUT_SECONDS) and of the bundled plugins
// the variables turn on, pinned by manifest ([Catalog]; nil pins none). An
// unreadable or invalid catalog is an InvalidRequest error naming
// PACT_PLUGINS: the board should not start with it. A variable whose
// plugin is not pinned is logged at warn level. m, when not nil, times the
// plugins' calls.
func FromConfig(cfg *boot.Config, manifest []Spec, logger hclog.Logger, m *metrics.Metrics) (*Host, error) {
	specs, warnings, err := Catalog(cfg, manifest)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		logger.Warn(w)
	}
	return New(specs, &Options{Dir: cfg.PluginDir, Logger: logger, CallTimeout: cfg.PluginTimeout, Metrics: m})
}

// New builds a host for specs (as [ParseCatalog] returns them). It starts
// nothing: [Host.Start] launches the plugins, and a call to a plugin that is
// not running launches it. opts may be nil.
func New(specs []Spec, opts *Options) (*Host, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Dir = cmpOr(o.Dir, "bin/plugins")
	if abs, err := filepath.Abs(o.Dir); err == nil {
		o.Dir = abs
	}
	o.Logger = cmpOr[hclog.Logger](o.Logger, hclog.NewNullLogger())
	o.CallTimeout = cmpOr(o.CallTimeout, 10*time.Second)
	o.StartTimeout = cmpOr(o.StartTimeout, 10*time.Second)
	o.HealthInterval = cmpOr(o.HealthInterval, 15*time.Second)
	o.BackoffMin = cmpOr(o.BackoffMin, time.Second)
	o.BackoffMax = max(cmpOr(o.BackoffMax, time.Minute), o.BackoffMin)
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}

	h := &Host{opts: o, logger: o.Logger.Named("plugin"), procs: map[string]*proc{}}
	for _, s := range specs {
		if err := s.check(); err != nil {
			return nil, errs.E(errs.InvalidRequest, "plugin %q: %v", s.Name, err)
		}
		if h.procs[s.Name] != nil {
			return nil, errs.E(errs.InvalidRequest, "plugin name %q appears twice", s.Name)
		}
		path := s.Binary
		if !filepath.IsAbs(path) {
			path = filepath.Join(o.Dir, path)
		}
		h.procs[s.Name] = newProc(h, s, path)
		h.order = append(h.order, s.Name)
	}
	return h, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Start launches every plugin (in parallel, each within StartTimeout) and
// the health checks. A plugin that fails to start is logged with the reason
// and retried with backoff; Start itself never fails, so a broken plugin
// never keeps the board from serving.
func (h *Host) Start() {
	h.mu.Lock()
	if h.started || h.closed {
		h.mu.Unlock()
		return
	}
	h.started = true
	ctx, cancel := context.WithCancel(context.Background())
	h.stop, h.done = cancel, make(chan struct{})
	h.mu.Unlock()

	var wg sync.WaitGroup
	for _, p := range h.procs {
		wg.Go(func() { p.tryStart(ctx) })
	}
	wg.Wait()
	go h.health(ctx)
}

// health pings running plugins and restarts dead ones until ctx ends.
func (h *Host) health(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(h.opts.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var wg sync.WaitGroup
		for _, p := range h.procs {
			wg.Go(func() { p.check(ctx) })
		}
		wg.Wait()
	}
}

// Close stops the health checks and kills every plugin process (gracefully,
// then by force). Calls after Close are errs.Unavailable.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	stop, done := h.stop, h.done
	h.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	var wg sync.WaitGroup
	for _, p := range h.procs {
		wg.Go(p.close)
	}
	wg.Wait()
	return nil
}

// Names returns the names of the configured plugins of kind, in catalog
// order.
func (h *Host) Names(kind Kind) []string {
	var out []string
	for _, n := range h.order {
		if h.procs[n].spec.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// Status is what the host knows of one plugin, for operators.
type Status struct {
	Name    string `json:"name"`
	Kind    Kind   `json:"kind"`
	Binary  string `json:"binary"`
	Running bool   `json:"running"`
	PID     int    `json:"pid,omitempty"`
	// Starts counts the processes launched (restarts are Starts-1).
	Starts int `json:"starts"`
	// LastError is why the plugin last failed to start or died.
	LastError string `json:"last_error,omitempty"`
}

// Status returns every plugin's state, in catalog order.
func (h *Host) Status() []Status {
	out := make([]Status, 0, len(h.order))
	for _, n := range h.order {
		out = append(out, h.procs[n].status())
	}
	return out
}

// lookup returns the plugin name of kind: errs.NotFound when the catalog has
// no such plugin, errs.InvalidRequest when it is of another kind.
func (h *Host) lookup(name string, kind Kind) (*proc, error) {
	p := h.procs[name]
	if p == nil {
		return nil, errs.E(errs.NotFound, "no plugin named %q in PACT_PLUGINS (configured: %v)", name, slices.Clone(h.order))
	}
	if p.spec.Kind != kind {
		return nil, errs.E(errs.InvalidRequest, "plugin %q is a %s plugin, not a %s", name, p.spec.Kind, kind)
	}
	return p, nil
}

// Notifier returns the notifier plugin name. Its calls carry the host's
// deadline and restart the plugin if it died; see the package doc for the
// errors.
func (h *Host) Notifier(name string) (notifier.Notifier, error) {
	p, err := h.lookup(name, KindNotifier)
	if err != nil {
		return nil, err
	}
	return &notifierClient{p: p}, nil
}

// Credential returns the credential plugin name, like [Host.Notifier].
func (h *Host) Credential(name string) (credential.Credential, error) {
	p, err := h.lookup(name, KindCredential)
	if err != nil {
		return nil, err
	}
	return &credentialClient{p: p}, nil
}

// Issuer returns the auth issuer plugin name, like [Host.Notifier].
func (h *Host) Issuer(name string) (authissuer.Issuer, error) {
	p, err := h.lookup(name, KindAuthIssuer)
	if err != nil {
		return nil, err
	}
	return &issuerClient{p: p}, nil
}

func (h *Host) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// String is for logs.
func (s Spec) String() string { return fmt.Sprintf("%s plugin %q (%s)", s.Kind, s.Name, s.Binary) }
