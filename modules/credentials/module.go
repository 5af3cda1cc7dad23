// Package credentials exports the board's authority as outside credentials
// (Tenuo warrants, Biscuit tokens) through credential plugins, and keeps
// the signed revocation lists verifiers refetch. The ledger stays the
// source of truth: a credential never grants more than its chain, and
// revoking any link puts every credential id minted through it on its
// format's list, in the revoking transaction.
package credentials

import (
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/credential"
)

// Formats the board knows.
var formats = map[string]bool{"tenuo": true, "biscuit": true}

// Plugins gives the credential plugin of a format (the plugin host does).
type Plugins interface {
	Credential(name string) (credential.Credential, error)
}

// Options configure the module.
type Options struct {
	// Plugins provides one credential plugin per format, named after it.
	Plugins Plugins
	// Keys signs what the plugins issue: the board's keyring.
	Keys *mandate.Keyring
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Module is the credentials module.
type Module struct {
	opts     Options
	db       *db.DB
	mandates *mandate.Service
	ident    *identity.Service
	logger   hclog.Logger
	format   string        // PACT_EXPORT_FORMAT; "" exports nothing
	ttl      time.Duration // PACT_EXPORT_TTL_HOURS
}

// New returns the credentials module.
func New(opts Options) *Module {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Module{opts: opts}
}

// Name is "credentials".
func (m *Module) Name() string { return "credentials" }

// Register hooks revocation publication into every revocation, serves the
// revocation lists, and, when an export format is set, adds a credential to
// every claim.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.mandates, m.ident, m.logger = h.DB(), h.Mandates(), h.Identity(), h.Logger()
	m.ttl = 24 * time.Hour
	if c := h.Config(); c != nil {
		m.format = c.ExportFormat
		if c.ExportTTL > 0 {
			m.ttl = c.ExportTTL
		}
	}
	m.mandates.OnRevoke(m.publishRevocations)
	h.MandateReports().ReportCredentials(mandateCredentials{})
	h.ProvideAgentKeys(liveKeys{})
	h.Handle("GET /.well-known/pact-revocations/{format}", http.HandlerFunc(m.serveList))
	m.registerAdmin(h.Admin())
	if m.format != "" {
		h.Claims().Add(m.exportOnClaim)
	}
	return nil
}
