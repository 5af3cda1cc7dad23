package pacts_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// boardTools is every tool an agent can call: the tools/list this board
// serves (the pacts module's), and docs/mcp-tools.json, the committed
// tools/list of the whole board (cmd/pact-board holds it to what is
// served).
func boardTools(t *testing.T, f *fixture) []*mcp.Tool {
	t.Helper()
	res, err := f.Session("wanda").ListTools(context.Background(), nil)
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcp-tools.json"))
	require.NoError(t, err)
	var doc struct {
		Tools []*mcp.Tool `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	served := map[string]bool{}
	for _, tool := range res.Tools {
		served[tool.Name] = true
	}
	require.True(t, served[pacts.ToolRaise] && served[pacts.ToolGet], "the served tools/list has the pact tools")
	require.NotEmpty(t, doc.Tools)
	return append(res.Tools, doc.Tools...)
}

// No MCP tool can answer a decision (docs/pacts.md "Decisions"): no tool
// is named for answering, resolving or ruling, and no tool's input has a
// field an answer is made of. Only a person answers, through the Admin
// API, and the database takes an answer from that path alone
// (TestTheDatabaseRefusesAnAnswerOffThePersonPath).
func TestNoToolCanAnswerADecision(t *testing.T) {
	f := setup(t)
	answerFields := []string{"answer", "answer_kind", "answered_by", "answered_at", "choice", "not_needed", "ruling"}
	for _, tool := range boardTools(t, f) {
		for _, word := range []string{"answer", "resolve", "rule"} {
			require.NotContains(t, tool.Name, word, "tool %s", tool.Name)
		}
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &schema))
		for _, field := range answerFields {
			require.NotContains(t, schema.Properties, field, "tool %s takes %s", tool.Name, field)
		}
		for name := range schema.Properties {
			require.False(t, strings.HasPrefix(name, "answer"), "tool %s takes %s", tool.Name, name)
		}
	}
}

// Every tool an agent can call is classified as a read or a write, so
// "What the agents changed this week" cannot miss a new tool's writes.
func TestEveryToolIsClassifiedAsReadOrWrite(t *testing.T) {
	f := setup(t)
	for _, tool := range boardTools(t, f) {
		require.True(t, pacts.KnownTool(tool.Name), "tool %s is not classified as a read or a write (service_record.go toolWrites)", tool.Name)
	}
}

// A tool whose call is a read or a write by its arguments writes with a
// body and reads without one; every served tool is tried both ways, and
// those two are pact_note and pact_message, so a tool
// added later that writes by its body is found, and one that turns it
// round fails.
func TestATaskToolWithAnOptionalBodyWritesOnlyWithIt(t *testing.T) {
	f := setup(t)
	var byBody []string
	for _, tool := range boardTools(t, f) {
		with, without := pacts.ToolWrites(tool.Name), pacts.ToolWritesWithoutABody(tool.Name)
		if with == without {
			continue
		}
		byBody = append(byBody, tool.Name)
		require.True(t, with, "%s with a body is a write", tool.Name)
		require.False(t, without, "%s without a body is a read", tool.Name)
	}
	require.ElementsMatch(t, []string{"pact_note", "pact_message"}, byBody)
}
