package notify

import (
	"context"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

// A person's inbox (docs/notifications.md, "The inbox"): the notices the
// board addressed to them (core/outbox.AddressedTo), read and marked read
// by that person alone. Reading is the person's own state, not the
// board's: marking read changes nothing anyone else sees and is not
// logged.

// Inbox page sizes.
const (
	DefaultInboxPage = 50
	MaxInboxPage     = 200
)

// InboxPage is one page of a person's inbox, newest first.
type InboxPage struct {
	Items []outbox.Item `json:"items" nullable:"false"`
	// Next, when not zero, is the before to pass for the next page.
	Next int64 `json:"next,omitempty" doc:"Pass as before for the next page; absent on the last page"`
}

// InboxCounts are what the console's bell shows.
type InboxCounts struct {
	Unread  int `json:"unread" doc:"Notices not marked read"`
	Waiting int `json:"waiting" doc:"Notices that ask the person to act and are still open"`
}

// ListInbox returns a page of p's inbox under filter f: up to limit items
// (DefaultInboxPage when 0) older than before (0: the newest).
func (s *Service) ListInbox(ctx context.Context, p *identity.Person, f outbox.Filter, before int64, limit int) (*InboxPage, error) {
	switch f {
	case outbox.Unread, outbox.Waiting, outbox.All:
	case "":
		f = outbox.All
	default:
		return nil, errs.E(errs.InvalidRequest, "filter is unread, waiting or all, not %q", f)
	}
	if limit <= 0 {
		limit = DefaultInboxPage
	}
	limit = min(limit, MaxInboxPage)
	items, err := outbox.ListInbox(ctx, s.db, p.OrgID, p.ID, f, before, limit+1)
	if err != nil {
		return nil, err
	}
	page := &InboxPage{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		page.Next = page.Items[limit-1].ID
	}
	return page, nil
}

// CountInbox returns p's unread and waiting counts.
func (s *Service) CountInbox(ctx context.Context, p *identity.Person) (*InboxCounts, error) {
	unread, waiting, err := outbox.CountInbox(ctx, s.db, p.OrgID, p.ID)
	if err != nil {
		return nil, err
	}
	return &InboxCounts{Unread: unread, Waiting: waiting}, nil
}

// MarkRead marks notification id read in p's inbox; not_found when it is
// not there (another person's, another organization's, or none).
func (s *Service) MarkRead(ctx context.Context, p *identity.Person, id int64) error {
	found, err := outbox.MarkRead(ctx, s.db, p.OrgID, p.ID, id)
	if err != nil {
		return err
	}
	if !found {
		return errs.E(errs.NotFound, "no notification %d in your inbox", id)
	}
	return nil
}

// MarkAllRead marks p's unread notices read, up to notification upTo when
// it is not zero, and returns how many.
func (s *Service) MarkAllRead(ctx context.Context, p *identity.Person, upTo int64) (int, error) {
	return outbox.MarkAllRead(ctx, s.db, p.OrgID, p.ID, upTo)
}
