package credentials

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
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

// registerAdmin adds the import operation: approvers turn an outside
// credential issued by a trusted root into a root mandate for an agent.
func (m *Module) registerAdmin(api huma.API) {
	huma.Register(api, kernel.AdminOp(huma.Operation{OperationID: "credentials-import", Method: http.MethodPost,
		Path: "/agents/{agent_id}/credentials", Summary: "Import an outside credential as a root mandate",
		Tags: []string{"credentials"}, DefaultStatus: http.StatusCreated, MaxBodyBytes: 80 << 10,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}}, identity.Approver), m.importCredential)
}

func (m *Module) importCredential(ctx context.Context, in *importIn) (*importOut, error) {
	p := kernel.AdminPerson(ctx)
	if p == nil {
		return nil, errs.E(errs.Unauthorized, "no signed-in person on this request")
	}
	plugin := func() (credential.Credential, error) { return m.plugin(in.Body.Format) }
	md, err := m.ident.ImportCredential(ctx, p.ID, in.AgentID, in.Body.Format, in.Body.Credential, plugin)
	if err != nil {
		return nil, err
	}
	out := &importOut{}
	out.Body.MandateID = md.ID.String()
	return out, nil
}
