package mcpserve_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func TestResourceTemplatesAreReadAsTheURLAgent(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("version "+version, func(t *testing.T) {
			f := newFixture(t)
			cs := f.connect(t, f.url("code-web"), f.live, version)
			ctx := context.Background()
			tpls, err := cs.ListResourceTemplates(ctx, nil)
			require.NoError(t, err)
			require.Len(t, tpls.ResourceTemplates, 1)
			require.Equal(t, "pact://projects/{project_id}/context/{key}", tpls.ResourceTemplates[0].URITemplate)
			require.Equal(t, "application/json", tpls.ResourceTemplates[0].MIMEType)

			uri := "pact://projects/web/context/style%20guide"
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			require.NoError(t, err)
			require.Len(t, res.Contents, 1)
			require.Equal(t, uri, res.Contents[0].URI)
			require.Equal(t, "application/json", res.Contents[0].MIMEType)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Contents[0].Text), &got))
			require.Equal(t, "code-web", got["agent"])
			require.Equal(t, map[string]any{"project_id": "web", "key": "style guide"}, got["params"])

			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "pact://projects/web/context/secret"})
			require.Error(t, err)
			require.Contains(t, err.Error(), `{"error":"not_found","message":"note secret does not exist"}`)
		})
	}
}
