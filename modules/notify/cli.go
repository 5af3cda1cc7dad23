package notify

import (
	"context"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/outbox"
)

// CLI is what pact-admin calls of this module (docs/pact-admin.md): the
// service methods the Admin API's operations call, for the person named by
// id rather than the signed-in one; any role may read and mark its own
// inbox.
type CLI struct{ s *Service }

// CLI returns the module's terminal adapter; valid once it is registered.
func (m *Module) CLI() CLI { return CLI{m.svc} }

// Destinations is ListDestinations.
func (c CLI) Destinations(ctx context.Context, by string) (*Destinations, error) {
	return c.s.ListDestinations(ctx, by)
}

// AddDestination is the service's AddDestination.
func (c CLI) AddDestination(ctx context.Context, by string, in DestinationInput) (*AddedDestination, error) {
	return c.s.AddDestination(ctx, by, in)
}

// DisableDestination is the service's DisableDestination.
func (c CLI) DisableDestination(ctx context.Context, by string, id int64) (*Destination, error) {
	return c.s.DisableDestination(ctx, by, id)
}

// Inbox is ListInbox for the person by.
func (c CLI) Inbox(ctx context.Context, by string, f outbox.Filter, before int64, limit int) (*InboxPage, error) {
	p, err := loadPerson(ctx, c.s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return c.s.ListInbox(ctx, p, f, before, limit)
}

// InboxCounts is CountInbox for the person by.
func (c CLI) InboxCounts(ctx context.Context, by string) (*InboxCounts, error) {
	p, err := loadPerson(ctx, c.s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return c.s.CountInbox(ctx, p)
}

// MarkRead is MarkRead for the person by.
func (c CLI) MarkRead(ctx context.Context, by string, id int64) error {
	p, err := loadPerson(ctx, c.s.db, by, string(identity.Viewer))
	if err != nil {
		return err
	}
	return c.s.MarkRead(ctx, p, id)
}

// MarkAllRead is MarkAllRead for the person by.
func (c CLI) MarkAllRead(ctx context.Context, by string, upTo int64) (int, error) {
	p, err := loadPerson(ctx, c.s.db, by, string(identity.Viewer))
	if err != nil {
		return 0, err
	}
	return c.s.MarkAllRead(ctx, p, upTo)
}

// EmailSettings is EmailSettingsOf for the person by.
func (c CLI) EmailSettings(ctx context.Context, by string) (*EmailSettings, error) {
	p, err := loadPerson(ctx, c.s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return c.s.EmailSettingsOf(ctx, p)
}

// SetEmailKinds is SetEmailKinds for the person by.
func (c CLI) SetEmailKinds(ctx context.Context, by string, kinds []string) (*EmailSettings, error) {
	p, err := loadPerson(ctx, c.s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return c.s.SetEmailKinds(ctx, p, kinds)
}
