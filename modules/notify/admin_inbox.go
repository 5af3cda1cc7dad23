package notify

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/outbox"
)

// The Admin API's inbox operations (docs/notifications.md, "The inbox"):
// adapters over ListInbox, CountInbox, MarkRead and MarkAllRead, each for
// the signed-in person's own inbox, so any person (viewer and up) calls
// them.

func (s *Service) registerInbox(api huma.API) {
	huma.Register(api, s.adminOp(http.MethodGet, "/me/notifications", "list-notifications",
		"List your notifications, newest first", "", identity.Viewer), s.adminListInbox)
	huma.Register(api, s.adminOp(http.MethodGet, "/me/notifications/counts", "count-notifications",
		"How many of your notifications are unread, and how many wait on you", "", identity.Viewer), s.adminCountInbox)
	read := s.adminOp(http.MethodPost, "/me/notifications/{notification_id}/read", "mark-notification-read",
		"Mark one of your notifications read", "", identity.Viewer, http.StatusNotFound)
	read.DefaultStatus = http.StatusNoContent
	huma.Register(api, read, s.adminMarkRead)
	huma.Register(api, s.adminOp(http.MethodPost, "/me/notifications/read", "mark-all-notifications-read",
		"Mark all your unread notifications read", "", identity.Viewer), s.adminMarkAllRead)
}

type listInboxIn struct {
	Filter string `query:"filter" enum:"unread,waiting,all" default:"all" doc:"unread: not marked read; waiting: asks you to act and is still open; all: everything"`
	Before int64  `query:"before" minimum:"0" doc:"Only notifications older than this id: the previous page's next"`
	Limit  int    `query:"limit" minimum:"0" maximum:"200" doc:"At most this many (50 when 0 or absent)"`
}

type inboxPageOut struct{ Body InboxPage }

type inboxCountsOut struct{ Body InboxCounts }

type notificationIDIn struct {
	NotificationID int64 `path:"notification_id" minimum:"1" doc:"The notification's id (GET /me/notifications)"`
}

type markAllIn struct {
	Body *struct {
		UpTo int64 `json:"up_to,omitempty" minimum:"0" doc:"Only notifications up to this id: what you have seen; absent: all"`
	}
}

type markedOut struct {
	Body struct {
		Marked int `json:"marked" doc:"How many were marked read"`
	}
}

func (s *Service) adminListInbox(ctx context.Context, in *listInboxIn) (*inboxPageOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	page, err := s.ListInbox(ctx, p, outbox.Filter(in.Filter), in.Before, in.Limit)
	if err != nil {
		return nil, err
	}
	return &inboxPageOut{Body: *page}, nil
}

func (s *Service) adminCountInbox(ctx context.Context, _ *struct{}) (*inboxCountsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.CountInbox(ctx, p)
	if err != nil {
		return nil, err
	}
	return &inboxCountsOut{Body: *c}, nil
}

func (s *Service) adminMarkRead(ctx context.Context, in *notificationIDIn) (*struct{}, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	return nil, s.MarkRead(ctx, p, in.NotificationID)
}

func (s *Service) adminMarkAllRead(ctx context.Context, in *markAllIn) (*markedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	var upTo int64
	if in.Body != nil {
		upTo = in.Body.UpTo
	}
	n, err := s.MarkAllRead(ctx, p, upTo)
	if err != nil {
		return nil, err
	}
	out := &markedOut{}
	out.Body.Marked = n
	return out, nil
}
