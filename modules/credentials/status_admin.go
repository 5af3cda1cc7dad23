package credentials

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// FormatStatus is one export format's revocation list.
type FormatStatus struct {
	Format        string `json:"format" bun:"format" enum:"tenuo,biscuit"`
	Version       int64  `json:"version" bun:"version" doc:"Bumped by every revoke that adds ids"`
	RevokedCount  int64  `json:"revoked_count" bun:"revoked_count" doc:"Revoked ids not yet expired"`
	PublishedPath string `json:"published_path" bun:"-" example:"/.well-known/pact-revocations/tenuo"`
}

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
	out := &credentialsStatusOut{}
	if f := m.format; f != "" {
		out.Body.ExportFormat = &f
	}
	out.Body.Formats = []FormatStatus{}
	err := m.db.NewRaw(`SELECT f.format, coalesce(v.version, 0) AS version,
		(SELECT count(*) FROM credential_revocations r WHERE r.format = f.format AND r.expires_at > now()) AS revoked_count
		FROM (VALUES ('tenuo', 1), ('biscuit', 2)) AS f (format, position)
		LEFT JOIN credential_revocation_version v ON v.format = f.format ORDER BY f.position`).Scan(ctx, &out.Body.Formats)
	for i := range out.Body.Formats {
		out.Body.Formats[i].PublishedPath = "/.well-known/pact-revocations/" + out.Body.Formats[i].Format
	}
	return out, err
}
