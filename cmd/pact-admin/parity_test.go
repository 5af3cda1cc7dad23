package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// apiOperation is one operation of docs/openapi.json.
type apiOperation struct{ method, path, id string }

// apiOperations are every operation of the Admin API, from docs/openapi.json.
func apiOperations(t *testing.T) []apiOperation {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.json"))
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	var ops []apiOperation
	for path, methods := range doc.Paths {
		for method, body := range methods {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue // parameters, summary: not operations
			}
			var op struct {
				OperationID string `json:"operationId"`
			}
			require.NoError(t, json.Unmarshal(body, &op))
			require.NotEmpty(t, op.OperationID, "%s %s has no operationId", method, path)
			ops = append(ops, apiOperation{strings.ToUpper(method), path, op.OperationID})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	return ops
}

// CLI-002: the population is the operations of docs/openapi.json. Each has
// a pact-admin command that resolves in the command table and answers
// --help, or a reason it has none; never both, and neither table names an
// operation the API does not have.
func TestEveryAdminOperationHasACommandOrAReason(t *testing.T) {
	ops := apiOperations(t)
	require.Greater(t, len(ops), 50, "docs/openapi.json was read whole")
	mapped, reasons, cmds := apiCommands(), withoutCommand(), commands()
	c := &cli{t: t, ran: map[string]bool{}, env: map[string]string{}}
	known := map[string]bool{}
	var unclassified []string
	for _, op := range ops {
		require.False(t, known[op.id], "operationId %s is used twice", op.id)
		known[op.id] = true
		name, hasCommand := mapped[op.id]
		reason, hasReason := reasons[op.id]
		switch {
		case hasCommand && hasReason:
			t.Errorf("%s %s (%s) has command %s and a reason it has none", op.method, op.path, op.id, name)
		case hasCommand:
			_, ok := cmds[name]
			require.True(t, ok, "%s %s (%s) maps to %q, which is not a pact-admin command", op.method, op.path, op.id, name)
			code, out, errOut := c.run(name, "--help")
			require.Zero(t, code, "pact-admin %s --help: %s", name, errOut)
			require.Contains(t, out, "Usage: pact-admin "+name)
		case hasReason:
			require.NotEmpty(t, strings.TrimSpace(reason), "%s has an empty reason", op.id)
		default:
			unclassified = append(unclassified, op.method+" "+op.path+" ("+op.id+")")
		}
	}
	require.Empty(t, unclassified, "operations with neither a pact-admin command (apiCommands) nor a reason (withoutCommand), cmd/pact-admin/parity.go")
	for id := range mapped {
		require.True(t, known[id], "apiCommands names %s, which docs/openapi.json does not have", id)
	}
	for id := range reasons {
		require.True(t, known[id], "withoutCommand names %s, which docs/openapi.json does not have", id)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "pact-admin.md"))
	require.NoError(t, err)
	for id, name := range mapped {
		require.True(t, strings.Contains(string(doc), "| `"+id+"` | `"+name+"` |"), "docs/pact-admin.md lists %s with its command %s", id, name)
	}
	for id := range reasons {
		require.True(t, strings.Contains(string(doc), "`"+id+"`"), "docs/pact-admin.md lists %s with its reason", id)
	}
}
