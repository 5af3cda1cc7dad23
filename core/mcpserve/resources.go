package mcpserve

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// addResources offers every kernel resource as an MCP resource template.
func (s *Server) addResources(srv *mcp.Server) error {
	for _, r := range s.opts.Resources.List() {
		tpl, err := uritemplate.New(r.URITemplate)
		if err != nil {
			return fmt.Errorf("resource template %q: %w", r.URITemplate, err)
		}
		srv.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType,
		}, s.readResource(r, tpl))
	}
	return nil
}

// readResource reads r for the URL's agent with the template's variables
// taken from the URI. A refusal is a JSON-RPC error whose message is the
// refusal's JSON (docs/specs/behavior.md §6.11): not_found and invalid_request carry
// the invalid-params code (which the SDK also uses for an unknown
// resource), the others the internal-error code; agents read the JSON.
func (s *Server) readResource(r *kernel.Resource, tpl *uritemplate.Template) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		c, ok := callerFrom(ctx)
		if !ok {
			return nil, resourceError(errs.E(errs.Forbidden, "no authenticated agent on this request"))
		}
		if c.grant != nil {
			return nil, resourceError(errs.E(errs.Forbidden, "a run's credential reads no resources; call the tools it lists"))
		}
		vals := tpl.Match(uri)
		if vals == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		params := make(map[string]string, len(vals))
		for k, v := range vals {
			params[k] = v.String()
		}
		ctx, cancel := bound(ctx, c)
		defer cancel()
		text, err := r.Read(ctx, c.agent, uri, params)
		if err != nil {
			if !errs.IsRefusal(err) && ctx.Err() == nil {
				s.opts.Logger.Error("resource read failed", "agent", c.agent, "uri", uri, "error", err)
			}
			return nil, resourceError(kernel.Public(err))
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: r.MIMEType, Text: text}}}, nil
	}
}

func resourceError(e *errs.Error) error {
	code := int64(jsonrpc.CodeInternalError)
	switch e.Code {
	case errs.Internal, errs.Unavailable:
	default:
		code = jsonrpc.CodeInvalidParams
	}
	return &jsonrpc.Error{Code: code, Message: refusalJSON(e)}
}
