package mcpserve

// This file and resources.go are the one translation point of the MCP
// boundary (docs/architecture.md, "Errors"): a tool's result becomes a text
// content holding its JSON (plus structured content), a refusal becomes a
// successful JSON-RPC result with isError whose text is exactly
// {"error","message"[,"mandate_id"]}, and an internal error shows only the
// generic message while its cause goes to the log. Nothing else in the
// board formats an MCP error.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// addTools offers every registered kernel tool as an MCP tool of the same
// name, title, description, input schema and output schema (when it has
// one). The SDK does not validate the arguments: the pipeline does, so a
// mistyped call is refused and logged like any other refusal.
//
// The input schema is handed over as its JSON, encoded once here: the SDK
// re-encodes a tool's input schema on every call it receives (to look for
// x-mcp-header annotations), which for a *jsonschema.Schema walks the whole
// schema through reflection each time (docs/benchmarks.md, "Where a call's
// time goes").
func (s *Server) addTools(srv *mcp.Server) error {
	for _, t := range s.opts.Tools.List() {
		input, err := json.Marshal(t.Input)
		if err != nil {
			return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: json.RawMessage(input),
			Annotations: annotations(t)}
		if t.Output != nil { // a nil *Schema in the interface would read as a schema
			tool.OutputSchema = t.Output
		}
		srv.AddTool(tool, s.callTool(t.Name))
	}
	return nil
}

// annotations are t's MCP annotations, every hint given explicitly: the
// specification's defaults (destructive, open world) are the opposite of
// most board tools'.
func annotations(t *kernel.Tool) *mcp.ToolAnnotations {
	h := t.Hints()
	return &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: h.ReadOnly, DestructiveHint: &h.Destructive,
		IdempotentHint: h.Idempotent, OpenWorldHint: &h.OpenWorld}
}

// callTool runs one call through kernel.Tools.Call as the agent of the URL,
// never an agent named in the arguments.
func (s *Server) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, ok := callerFrom(ctx)
		if !ok {
			return refused(errs.E(errs.Forbidden, "no authenticated agent on this request")), nil
		}
		ctx, cancel := bound(ctx, c)
		defer cancel()
		if c.unchecked != "" {
			ctx = kernel.WithAgentToken(ctx, c.unchecked)
		}
		out, err := s.opts.Tools.Call(ctx, c.agent, name, req.Params.Arguments)
		if errors.Is(err, kernel.ErrHeld) {
			return heldResult(), nil // dropped: the call is answered after its wait (held.go)
		}
		if errors.Is(err, identity.ErrTokenRefused) {
			// Answered as a 401 (calltoken.go); this result is what a
			// transport that had already started its answer would send.
			c.tokenRefused.Store(true)
			return refused(errs.E(errs.Unauthorized, "invalid or expired agent token")), nil
		}
		if err == nil || errs.IsRefusal(err) { // the gate, or a check apart, took the token
			c.tokenChecked.Store(true)
		}
		if err != nil {
			return s.toolError(ctx, c.agent, name, err), nil
		}
		body, err := encode(out)
		if err != nil {
			return s.toolError(ctx, c.agent, name, err), nil
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
		if bytes.HasPrefix(body, []byte("{")) { // structured content must be an object
			res.StructuredContent = json.RawMessage(body)
		}
		return res, nil
	}
}

// heldResult answers the first pass of a held call; no client sees it.
func heldResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}
}

// toolError turns err into the isError result agents see. Refusals were
// already logged by the pipeline; other errors are logged here, with their
// cause, and shown as the generic internal error, or as unavailable when
// the database failed the call (kernel.Public).
func (s *Server) toolError(ctx context.Context, agent, tool string, err error) *mcp.CallToolResult {
	p := kernel.Public(err)
	switch {
	case errs.IsRefusal(err):
	case ctx.Err() != nil:
		s.opts.Logger.Debug("tool call abandoned by its client", "agent", agent, "tool", tool, "error", err)
	case p.Code == errs.Unavailable:
		// The database (or a plugin) is down: the caller is told to retry,
		// and the cause is logged once per call, not as a bug.
		s.opts.Logger.Warn("tool call unavailable", "agent", agent, "tool", tool, "error", err)
	default:
		s.opts.Logger.Error("tool call failed", "agent", agent, "tool", tool, "error", err)
	}
	return refused(p)
}

// refusal is the wire shape of a refusal (docs/specs/behavior.md §2.1).
type refusal struct {
	Error     errs.Code `json:"error"`
	Message   string    `json:"message"`
	MandateID string    `json:"mandate_id,omitempty"`
}

func refusalJSON(e *errs.Error) string {
	body, _ := encode(refusal{Error: e.Code, Message: e.Message, MandateID: e.MandateID}) // strings only: cannot fail
	return string(body)
}

func refused(e *errs.Error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: refusalJSON(e)}}}
}

// encode is compact JSON without HTML escaping: agents read "<agent-id>"
// as written.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
