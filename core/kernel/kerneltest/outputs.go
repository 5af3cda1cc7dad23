package kerneltest

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// checkOutput holds every successful tool result Call receives to TOOL-001
// (docs/invariants.md): its structured content is the JSON of its text and
// validates against the output schema tools/list declares for the tool.
func (w *World) checkOutput(agent, tool string, res *mcp.CallToolResult, text string) {
	w.T.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(w.T, err)
	require.JSONEq(w.T, text, string(b), "%s: structuredContent is the text's JSON", tool)
	schema := w.outputSchema(agent, tool)
	require.NotNil(w.T, schema, "%s declares no output schema", tool)
	var v any
	require.NoError(w.T, json.Unmarshal(b, &v))
	require.NoError(w.T, schema.Validate(v), "%s: %s", tool, text)
}

// outputSchema is tool's output schema as tools/list serves it, listed once
// per World.
func (w *World) outputSchema(agent, tool string) *jsonschema.Resolved {
	w.T.Helper()
	w.mu.Lock()
	outputs := w.outputs
	w.mu.Unlock()
	if outputs == nil {
		res, err := w.Session(agent).ListTools(context.Background(), nil)
		require.NoError(w.T, err)
		outputs = map[string]*jsonschema.Resolved{}
		for _, t := range res.Tools {
			if t.OutputSchema == nil {
				continue
			}
			raw, err := json.Marshal(t.OutputSchema)
			require.NoError(w.T, err)
			var s jsonschema.Schema
			require.NoError(w.T, json.Unmarshal(raw, &s), t.Name)
			outputs[t.Name], err = s.Resolve(nil)
			require.NoError(w.T, err, t.Name)
		}
		w.mu.Lock()
		w.outputs = outputs
		w.mu.Unlock()
	}
	return outputs[tool]
}
