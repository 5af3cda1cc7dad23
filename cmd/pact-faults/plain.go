package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// plainCall posts one stateless tools/call, as a client that keeps no
// session does, and returns the HTTP status and the body: for a 200 the
// tool's answer (with "isError": true for a refusal); otherwise the
// board's {"error", "message"}. The MCP SDK's client reports a 503 only as
// "Service Unavailable"; this shows what the board said, to a person.
func plainCall(ctx context.Context, boardURL string, a agentCreds, tool string, args map[string]any) (int, map[string]any, error) {
	const version = "2026-07-28"
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "pact-faults", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, boardURL+"/mcp/a/"+a.id, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for k, v := range map[string]string{"Authorization": "Bearer " + a.token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": version, "Mcp-Method": "tools/call",
		"Mcp-Name": tool} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
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
