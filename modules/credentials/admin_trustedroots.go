package credentials

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

type trustedRootsOut struct {
	Body struct {
		TrustedRoots []TrustedRoot `json:"trusted_roots" nullable:"false"`
	}
}

type addRootIn struct {
	Body struct {
		PublicKey string `json:"public_key" maxLength:"100" example:"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" doc:"Ed25519: base64url of its 32 raw bytes"`
		Human     string `json:"human" example:"ana" doc:"The person of the organization the key stands for"`
		Label     string `json:"label,omitempty" maxLength:"200"`
	}
}

type addedRootOut struct{ Body AddedRoot }

type rootPath struct {
	Principal string `path:"principal" pattern:"^[A-Za-z0-9_-]{43}$" doc:"The key, base64url of its 32 raw bytes"`
}

func (m *Module) registerTrustedRoots(api huma.API) {
	huma.Register(api, peopleOp(http.MethodGet, "/trusted-roots", "list-trusted-roots",
		"List the organization's trusted roots", identity.Viewer), m.listRoots)
	huma.Register(api, peopleOp(http.MethodPost, "/trusted-roots", "add-trusted-root",
		"Trust an outside Ed25519 key to issue credentials for a person (a revoked one is reactivated)", identity.Owner,
		http.StatusBadRequest, http.StatusNotFound), m.addRoot)
	huma.Register(api, peopleOp(http.MethodDelete, "/trusted-roots/{principal}", "revoke-trusted-root",
		"Stop trusting a key", identity.Owner, http.StatusBadRequest, http.StatusNotFound), m.revokeRoot)
}

func (m *Module) listRoots(ctx context.Context, _ *struct{}) (*trustedRootsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &trustedRootsOut{}
	out.Body.TrustedRoots, err = m.ListTrustedRoots(ctx, p.OrgID)
	return out, err
}

func (m *Module) addRoot(ctx context.Context, in *addRootIn) (*addedRootOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	r, err := m.AddTrustedRoot(ctx, p.ID, in.Body.PublicKey, in.Body.Human, in.Body.Label)
	if err != nil {
		return nil, err
	}
	return &addedRootOut{Body: *r}, nil
}

func (m *Module) revokeRoot(ctx context.Context, in *rootPath) (*revokedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	n, err := m.RevokeTrustedRoot(ctx, p.ID, in.Principal)
	if err != nil {
		return nil, err
	}
	out := &revokedOut{}
	out.Body.Revoked = n
	return out, nil
}
