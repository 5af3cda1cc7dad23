package notify

import (
	"context"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/outbox"
)

// The inbox for pact-admin (docs/pact-admin.md): the same methods the
// Admin API's inbox operations call, for the person named by id rather
// than the signed-in one; any role may read and mark its own inbox.

// InboxOf is ListInbox for the person by.
func (s *Service) InboxOf(ctx context.Context, by string, f outbox.Filter, before int64, limit int) (*InboxPage, error) {
	p, err := loadPerson(ctx, s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return s.ListInbox(ctx, p, f, before, limit)
}

// InboxCountsOf is CountInbox for the person by.
func (s *Service) InboxCountsOf(ctx context.Context, by string) (*InboxCounts, error) {
	p, err := loadPerson(ctx, s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return s.CountInbox(ctx, p)
}

// MarkReadOf is MarkRead for the person by.
func (s *Service) MarkReadOf(ctx context.Context, by string, id int64) error {
	p, err := loadPerson(ctx, s.db, by, string(identity.Viewer))
	if err != nil {
		return err
	}
	return s.MarkRead(ctx, p, id)
}

// MarkAllReadOf is MarkAllRead for the person by.
func (s *Service) MarkAllReadOf(ctx context.Context, by string, upTo int64) (int, error) {
	p, err := loadPerson(ctx, s.db, by, string(identity.Viewer))
	if err != nil {
		return 0, err
	}
	return s.MarkAllRead(ctx, p, upTo)
}

// EmailSettingsFor is EmailSettingsOf for the person by.
func (s *Service) EmailSettingsFor(ctx context.Context, by string) (*EmailSettings, error) {
	p, err := loadPerson(ctx, s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return s.EmailSettingsOf(ctx, p)
}

// SetEmailKindsFor is SetEmailKinds for the person by.
func (s *Service) SetEmailKindsFor(ctx context.Context, by string, kinds []string) (*EmailSettings, error) {
	p, err := loadPerson(ctx, s.db, by, string(identity.Viewer))
	if err != nil {
		return nil, err
	}
	return s.SetEmailKinds(ctx, p, kinds)
}
