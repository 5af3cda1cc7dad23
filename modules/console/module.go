// Package console is the server side of the web console at /console
// (docs/console.md): sign-in (OIDC with PKCE, or the one-time local link
// pact-board prints), the sealed session cookie the Admin API accepts in
// place of a bearer token, the live stream of what needs the signed-in
// person, and the console's static files. The browser never holds a token:
// the board keeps them in the sealed cookie.
package console

import (
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seal"
)

// Lifetimes.
const (
	// SessionTTL is how long a session lasts at most, however it began.
	SessionTTL = 12 * time.Hour
	// LocalCodeTTL is how long a printed local sign-in link works.
	LocalCodeTTL = 15 * time.Minute
	// loginTTL is how long a started OIDC sign-in may take.
	loginTTL = 10 * time.Minute
)

// Options configure the console.
type Options struct {
	// Keys is the board's keyring: the cookies are sealed under it.
	Keys *mandate.Keyring
	// Assets are the console's built files (index.html, assets/…); nil
	// serves none, only sign-in, the session and the live stream.
	Assets fs.FS
	// Now is the clock of sessions and codes (nil: time.Now).
	Now func() time.Time
}

// Module is the console module.
type Module struct {
	opts     Options
	box      *seal.Box
	db       *db.DB
	cfg      *boot.Config
	auth     kernel.AdminAuthenticator
	verifier kernel.AdminVerifier
	logger   hclog.Logger
	live     *live
	// events wakes the live streams on a stop (core/events.KindStop):
	// each re-checks its session and person and ends if either fails.
	events *events.Hub
	// draining is closed when the board drains: live streams end, and the
	// browser's EventSource reconnects, to another board.
	draining <-chan struct{}
	// refresher runs one refresh per refresh token (refresh.go).
	refresher refresher

	mu        sync.Mutex
	discovery *discovery // the issuer's endpoints, once fetched
}

// New returns the console module.
func New(opts Options) *Module {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Module{opts: opts}
}

// Name is "console".
func (m *Module) Name() string { return "console" }

// Register adds the /console routes, the Admin API's cookie sessions and
// its live stream.
func (m *Module) Register(h *kernel.Host) error {
	if m.opts.Keys == nil {
		return errMissingKeys
	}
	m.box, m.db, m.cfg, m.logger = seal.New(m.opts.Keys), h.DB(), h.Config(), h.Logger()
	m.auth, m.verifier = h.AdminAuthenticator(), h.AdminVerifier()
	m.live = newLive(m.db, m.logger)
	m.events = h.Events()
	m.draining = h.Draining()
	h.ProvideAdminSessions(m)
	h.Handle("GET /console/session", m.headers(m.getSession))
	h.Handle("GET /console/auth/login", m.headers(m.login))
	h.Handle("GET /console/auth/callback", m.headers(m.callback))
	h.Handle("GET /console/auth/local", m.headers(m.local))
	h.Handle("POST /console/auth/logout", m.headers(m.logout))
	h.Handle("/console/auth/", m.headers(notFound))
	if m.opts.Assets != nil {
		h.Handle("/console/", m.headers(m.static))
		h.Handle("GET /console", m.headers(toConsole))
	}
	m.registerLive(h.Admin())
	if err := h.Channel(kernel.Channel{Name: "console-live", Audience: kernel.PersonAudience, Operations: []string{"console-live"},
		Summary: "the console's live stream of what needs the signed-in person"}); err != nil {
		return err
	}
	h.Worker("live", m.live.run)
	return nil
}

// secure reports whether cookies must be Secure: the board is reached
// over https.
func (m *Module) secure() bool { return strings.HasPrefix(m.cfg.PublicURL, "https://") }
