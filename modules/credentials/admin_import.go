package credentials

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/credential"
)

type importIn struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$" doc:"The agent the credential was issued to"`
	Body    struct {
		Format     string `json:"format" enum:"tenuo,biscuit" doc:"The credential's format"`
		Credential string `json:"credential" minLength:"1" maxLength:"65536" doc:"The credential as text (a base64url Tenuo warrant stack)"`
	}
}

type importOut struct {
	Body struct {
		MandateID string `json:"mandate_id" doc:"The root mandate the credential became"`
	}
}

// registerAdmin adds the Admin API operations: importing an outside
// credential issued by a trusted root as a root mandate for an agent
// (approvers), and the agent keys, trusted roots and revocation status.
func (m *Module) registerAdmin(api huma.API) {
	m.registerKeys(api)
	m.registerTrustedRoots(api)
	m.registerStatus(api)
	huma.Register(api, kernel.AdminOp(huma.Operation{OperationID: "credentials-import", Method: http.MethodPost,
		Path: "/agents/{agent_id}/credentials", Summary: "Import an outside credential as a root mandate",
		Tags: []string{"credentials"}, DefaultStatus: http.StatusCreated, MaxBodyBytes: 80 << 10,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}}, identity.Approver), m.importCredential)
}

func (m *Module) importCredential(ctx context.Context, in *importIn) (*importOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	plugin := func() (credential.Credential, error) { return m.plugin(in.Body.Format) }
	md, err := m.ImportCredential(ctx, p.ID, in.AgentID, in.Body.Format, in.Body.Credential, plugin)
	if err != nil {
		return nil, err
	}
	out := &importOut{}
	out.Body.MandateID = md.ID.String()
	return out, nil
}

// maxPeopleBody bounds the bodies of the operations that kept their people-*
// ids; every one is a few fields.
const maxPeopleBody = 16 << 10

// peopleOp is an operation that moved here from the people module: its id
// stays people-<verb>[-<noun>] and its tag "people", so clients and the
// OpenAPI document keep them; AdminOp declares the role gate.
func peopleOp(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	return kernel.AdminOp(huma.Operation{OperationID: "people-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"people"}, Errors: errors, MaxBodyBytes: maxPeopleBody}, min)
}
