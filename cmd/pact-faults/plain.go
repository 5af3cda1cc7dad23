package main

import (
	"context"

	"github.com/pactboard/pact/core/mcpserve/plaincall"
)

// plainCall posts one stateless tools/call for agent a (plaincall.Call):
// the MCP SDK's client reports a 503 only as "Service Unavailable"; this
// shows what the board said, to a person.
func plainCall(ctx context.Context, boardURL string, a agentCreds, tool string, args map[string]any) (int, map[string]any, error) {
	return plaincall.Call(ctx, nil, boardURL, a.id, a.token, tool, args)
}
