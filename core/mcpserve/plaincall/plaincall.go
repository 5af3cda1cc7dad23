// Package plaincall makes one MCP tools/call the way a client that keeps no
// session does: a single JSON-RPC POST of the stateless protocol (the
// version in a header and in _meta, no initialize). Harnesses and tests use
// it where the official SDK's client hides what they check: the HTTP status
// and body of a refusal the board answers before any tool runs (a 503 while
// the database is away), or thousands of held calls that must stay cheap.
package plaincall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Version is the stateless protocol version the calls speak.
const Version = "2026-07-28"

// Call posts tool with args to the agent's MCP URL under base with its
// bearer token, through c (nil: http.DefaultClient). It returns the HTTP
// status and the body: for a 200, the tool's JSON answer, with "isError":
// true added when the tool refused; otherwise the board's
// {"error", "message"}. err is for an exchange that failed or an answer
// that is neither.
func Call(ctx context.Context, c *http.Client, base, agent, token, tool string, args map[string]any) (int, map[string]any, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    Version,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "plaincall", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}})
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp/a/"+agent, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for k, v := range map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": Version, "Mcp-Method": "tools/call",
		"Mcp-Name": tool} {
		req.Header.Set(k, v)
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	var out map[string]any
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(raw, &out); err != nil {
			return resp.StatusCode, nil, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
		}
		return resp.StatusCode, out, nil
	}
	var rpc struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &rpc); err != nil || rpc.Result == nil || len(rpc.Result.Content) != 1 {
		return resp.StatusCode, nil, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	if err := json.Unmarshal([]byte(rpc.Result.Content[0].Text), &out); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	if rpc.Result.IsError {
		out["isError"] = true
	}
	return resp.StatusCode, out, nil
}
