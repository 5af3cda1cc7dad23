package main

// The go-sdk floor: the reference the board's read tools are measured
// against (docs/benchmarks.md, "References"). It is the MCP server the board
// would be if its tools did nothing: the same SDK, configured as
// core/mcpserve configures it, behind an http.Server set up as pact-board's,
// on loopback, driven by BenchmarkMCPCalls' own loader and clients.

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floorAgent carries the agent of the URL to the tool, as mcpserve's
// caller does.
type floorAgent struct{}

// startFloor serves one trivial tool, "ping", to agents at
// /mcp/a/<agent-id>, each with its own token, and returns the base URL.
func startFloor(b testing.TB, agents []benchAgent) string {
	b.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	// Added raw, as mcpserve adds the board's tools: the SDK validates
	// nothing, and the answer is what mcpserve makes of a tool's result, a
	// JSON text that is also the structured content.
	srv.AddTool(&mcp.Tool{Name: "ping", Description: "Answers with the caller's agent id.",
		InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			body, err := json.Marshal(map[string]string{"agent_id": ctx.Value(floorAgent{}).(string)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}},
				StructuredContent: json.RawMessage(body)}, nil
		})
	// The options core/mcpserve's build uses.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, PropagateRequestCancellation: true, DisableLocalhostProtection: true,
	})
	tokens := map[string][]byte{}
	for _, a := range agents {
		tokens[a.id] = []byte(a.token)
	}
	mux := http.NewServeMux()
	// The bearer check is the one step of the board's authentication that
	// costs nothing: the board's token lookup is a database query, the
	// board's work and so not the floor's.
	mux.HandleFunc("/mcp/a/{agent}", func(w http.ResponseWriter, r *http.Request) {
		agent := r.PathValue("agent")
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		want, known := tokens[agent]
		if !ok || !known || subtle.ConstantTimeCompare([]byte(token), want) != 1 {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), floorAgent{}, agent)))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	// pact-board's server settings (board.go, serve).
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	b.Cleanup(func() {
		_ = hs.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			b.Errorf("floor server: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// BenchmarkMCPFloor is calls per second and latency of the floor's one
// tool with 1 and 16 clients, each its own agent with its own session and
// HTTP transport, exactly as BenchmarkMCPCalls drives the board.
func BenchmarkMCPFloor(b *testing.B) {
	agents := make([]benchAgent, 16)
	for i := range agents {
		agents[i] = benchAgent{id: fmt.Sprintf("bench-%02d", i), token: fmt.Sprintf("pact_floor_token_%02d", i)}
	}
	base := startFloor(b, agents)
	sessions := make([]*mcp.ClientSession, len(agents))
	for i, a := range agents {
		sessions[i] = benchSession(b, base, a)
	}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			loadCalls(b, clients, func(ctx context.Context, c, _ int) error {
				text, err := callTool(ctx, sessions[c], "ping", nil)
				if err == nil && !strings.Contains(text, agents[c].id) {
					err = fmt.Errorf("ping answered %s to %s", text, agents[c].id)
				}
				return err
			})
		})
	}
}
