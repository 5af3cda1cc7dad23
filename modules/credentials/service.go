package credentials

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// Service is where every rule about outside credentials is decided: export
// on claim, revocation lists, import, agent keys and trusted roots. The
// claim hook, the revocation route, the kernel's seams (seams.AgentKeys,
// seams.MandateCredentials), the Admin operations and pact-admin are
// adapters over its methods, and its store (store*.go) holds the SQL.
type Service struct {
	db       *db.DB
	mandates *mandate.Service
	ident    *identity.Service
	logger   hclog.Logger
	opts     Options
	format   string        // PACT_EXPORT_FORMAT; "" exports nothing
	ttl      time.Duration // PACT_EXPORT_TTL_HOURS
}

// plugin returns the credential plugin of format, or Unavailable.
func (s *Service) plugin(format string) (credential.Credential, error) {
	if s.opts.Plugins == nil {
		return nil, errs.E(errs.Unavailable, "no credential plugin is configured for %s (PACT_PLUGINS)", format)
	}
	p, err := s.opts.Plugins.Credential(format)
	if err != nil {
		if errs.CodeOf(err) == errs.NotFound {
			return nil, errs.E(errs.Unavailable, "no credential plugin named %s in PACT_PLUGINS", format)
		}
		return nil, fmt.Errorf("credential plugin %s: %w", format, err)
	}
	return p, nil
}

// Status is the board's export format and its revocation lists.
type Status struct {
	ExportFormat *string // nil when PACT_EXPORT_FORMAT is unset
	Formats      []FormatStatus
}

// FormatStatus is one export format's revocation list.
type FormatStatus struct {
	Format        string `json:"format" bun:"format" enum:"tenuo,biscuit"`
	Version       int64  `json:"version" bun:"version" doc:"Bumped by every revoke that adds ids"`
	RevokedCount  int64  `json:"revoked_count" bun:"revoked_count" doc:"Revoked ids not yet expired"`
	PublishedPath string `json:"published_path" bun:"-" example:"/.well-known/pact-revocations/tenuo"`
}

// Status reads the export format and each format's published list. It is
// board-wide by design: the lists are published for the whole board.
func (s *Service) Status(ctx context.Context) (*Status, error) {
	out := &Status{}
	if f := s.format; f != "" {
		out.ExportFormat = &f
	}
	var err error
	out.Formats, err = formatStatuses(ctx, s.db)
	for i := range out.Formats {
		out.Formats[i].PublishedPath = "/.well-known/pact-revocations/" + out.Formats[i].Format
	}
	return out, err
}

// wrap says what was being done around an error that is not a refusal, so
// an internal error in the log can be traced; refusals go back as they are.
func wrap(err error, format string, args ...any) error {
	if err == nil || errs.IsRefusal(err) {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
