package credentials

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

type credentialsStatusOut struct {
	Body struct {
		ExportFormat *string        `json:"export_format" doc:"PACT_EXPORT_FORMAT (tenuo or biscuit); null when unset"`
		Formats      []FormatStatus `json:"formats" nullable:"false"`
	}
}

func (m *Module) registerStatus(api huma.API) {
	huma.Register(api, peopleOp(http.MethodGet, "/credentials/status", "get-credentials-status",
		"The export format and each format's published revocations (board-wide)", identity.Viewer), m.credentialsStatus)
}

// credentialsStatus is global by design: the revocation lists are
// published for the whole board.
func (m *Module) credentialsStatus(ctx context.Context, _ *struct{}) (*credentialsStatusOut, error) {
	if _, err := kernel.SignedIn(ctx); err != nil {
		return nil, err
	}
	st, err := m.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := &credentialsStatusOut{}
	out.Body.ExportFormat, out.Body.Formats = st.ExportFormat, st.Formats
	return out, nil
}
