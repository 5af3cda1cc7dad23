// Package credentials exports the board's authority as outside credentials
// (Tenuo warrants, Biscuit tokens) through credential plugins, and keeps
// the signed revocation lists verifiers refetch. The ledger stays the
// source of truth: a credential never grants more than its chain, and
// revoking any link puts every credential id minted through it on its
// format's list, in the revoking transaction.
package credentials

import (
	"context"
	"maps"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
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

// Module is the credentials module: its registry entry, holding the
// service its adapters call. It embeds the service, so pact-admin calls
// the service's methods on the module it registers.
type Module struct {
	opts Options
	*Service
}

// New returns the credentials module; Register builds its service.
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
	s := &Service{db: h.DB(), mandates: h.Mandates(), ident: h.Identity(), logger: h.Logger(), opts: m.opts, ttl: 24 * time.Hour}
	if c := h.Config(); c != nil {
		s.format = c.ExportFormat
		if c.ExportTTL > 0 {
			s.ttl = c.ExportTTL
		}
	}
	m.Service = s
	s.mandates.OnRevoke(s.publishRevocations)
	if err := kernel.Provide(h, seams.MandateCredentialsSeam, seams.MandateCredentials(s)); err != nil {
		return err
	}
	if err := kernel.Provide(h, seams.AgentKeysSeam, seams.AgentKeys(s)); err != nil {
		return err
	}
	h.Handle("GET /.well-known/pact-revocations/{format}", http.HandlerFunc(m.serveList))
	m.registerAdmin(h.Admin())
	if s.format != "" {
		if err := kernel.Subscribe(h, seams.ClaimedHook, func(ctx context.Context, tx bun.IDB, c seams.Claimed) error {
			maps.Copy(c.Answer, s.exportOnClaim(ctx, tx, c))
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}
