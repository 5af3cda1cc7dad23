package credentials

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

type agentKeysOut struct {
	Body struct {
		Keys []AgentKey `json:"keys" nullable:"false"`
	}
}

type addKeyIn struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Body    struct {
		PublicKey string `json:"public_key" maxLength:"100" example:"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" doc:"Ed25519: base64url of its 32 raw bytes"`
	}
}

type addedKeyOut struct{ Body AddedKey }

type keyPath struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	KID     string `path:"kid" pattern:"^[A-Za-z0-9_-]{16}$" doc:"First 16 characters of base64url(sha256(key))"`
}

type revokedOut struct {
	Body struct {
		Revoked int64 `json:"revoked"`
	}
}

func (m *Module) registerKeys(api huma.API) {
	huma.Register(api, peopleOp(http.MethodGet, "/agents/{agent_id}/keys", "list-agent-keys",
		"List an agent's Ed25519 public keys", identity.Viewer, http.StatusNotFound), m.listKeys)
	huma.Register(api, peopleOp(http.MethodPost, "/agents/{agent_id}/keys", "add-agent-key",
		"Register an Ed25519 public key for a code or runner agent", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound), m.addKey)
	huma.Register(api, peopleOp(http.MethodDelete, "/agents/{agent_id}/keys/{kid}", "revoke-agent-key",
		"Revoke one of an agent's keys", identity.Approver, http.StatusNotFound), m.revokeKey)
}

func (m *Module) listKeys(ctx context.Context, in *agentPath) (*agentKeysOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &agentKeysOut{}
	out.Body.Keys, err = m.ListAgentKeys(ctx, p.OrgID, in.AgentID)
	return out, err
}

func (m *Module) addKey(ctx context.Context, in *addKeyIn) (*addedKeyOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	k, err := m.AddAgentKey(ctx, p.ID, in.AgentID, in.Body.PublicKey)
	if err != nil {
		return nil, err
	}
	return &addedKeyOut{Body: *k}, nil
}

func (m *Module) revokeKey(ctx context.Context, in *keyPath) (*revokedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	n, err := m.RevokeAgentKey(ctx, p.ID, in.AgentID, in.KID)
	if err != nil {
		return nil, err
	}
	out := &revokedOut{}
	out.Body.Revoked = n
	return out, nil
}

// agentPath names an agent.
type agentPath struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
}
