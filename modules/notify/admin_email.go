package notify

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// The Admin API's email operations (docs/notifications.md, "Email"):
// adapters over EmailSettingsOf and SetEmailKinds, each for the signed-in
// person's own choices, so any person (viewer and up) calls them. Like
// marking read, a choice is the person's own state and is not logged.

func (s *Service) registerEmail(api huma.API) {
	huma.Register(api, s.adminOp(http.MethodGet, "/me/email", "get-email-settings",
		"Which kinds of notice are emailed to you", "", identity.Viewer), s.adminGetEmail)
	huma.Register(api, s.adminOp(http.MethodPut, "/me/email", "set-email-settings",
		"Choose which kinds of notice are emailed to you", "", identity.Viewer, http.StatusBadRequest), s.adminSetEmail)
}

type emailSettingsOut struct{ Body EmailSettings }

type setEmailIn struct {
	Body struct {
		Kinds []string `json:"kinds" nullable:"false" maxItems:"50" doc:"The kinds emailed to you (GET /me/email lists them); every other kind is not. An empty list turns email off"`
	}
}

func (s *Service) adminGetEmail(ctx context.Context, _ *struct{}) (*emailSettingsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.EmailSettingsOf(ctx, p)
	if err != nil {
		return nil, err
	}
	return &emailSettingsOut{Body: *e}, nil
}

func (s *Service) adminSetEmail(ctx context.Context, in *setEmailIn) (*emailSettingsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.SetEmailKinds(ctx, p, in.Body.Kinds)
	if err != nil {
		return nil, err
	}
	return &emailSettingsOut{Body: *e}, nil
}
