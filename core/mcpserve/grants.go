package mcpserve

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// narrowLists shows a per-run credential only what it may use: tools/list
// lists the tools its grant names, and resources/list and
// resources/templates/list list none (a grant reads no resources). The
// pipeline refuses everything else (kernel.Tools.Call, readResource); the
// lists only keep a session from offering its model what it cannot call.
func narrowLists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		c, ok := callerFrom(ctx)
		if err != nil || !ok || c.grant == nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.ListToolsResult:
			out := *r
			out.Tools = slices.DeleteFunc(slices.Clone(r.Tools), func(t *mcp.Tool) bool { return !c.grant.Allows(t.Name) })
			return &out, nil
		case *mcp.ListResourcesResult:
			out := *r
			out.Resources = []*mcp.Resource{}
			return &out, nil
		case *mcp.ListResourceTemplatesResult:
			out := *r
			out.ResourceTemplates = []*mcp.ResourceTemplate{}
			return &out, nil
		}
		return res, nil
	}
}
