package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestEveryToolKeepsItsRoundTripBudget calls every tool in the registry
// over MCP and counts, with a pgx tracer on the board's pool, the
// exchanges with PostgreSQL each call makes, from the bearer-token check to
// COMMIT. The most any call of a tool makes must be exactly the budget the
// tool declares (kernel.Tool.RoundTrips): more is a regression, fewer is a
// gain to write down (docs/invariants.md PERF-001). A connection's one-time
// prepare of a statement is reported and not counted.
func TestEveryToolKeepsItsRoundTripBudget(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	most := map[string]int{}
	seen := map[string][]string{}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		var sent []string
		stop := a.d.Watch(func(sql string) { sent = append(sent, sql) })
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		stop()
		require.NoError(t, err)
		text := res.Content[0].(*mcp.TextContent).Text
		require.False(t, res.IsError, "%s: %s", name, text)
		// Not the call's: statement preparations, and the last_seen stamps
		// written apart from calls, a second after them (identity.Service.Seen).
		trips := slices.DeleteFunc(sent, func(s string) bool {
			return strings.HasPrefix(s, "<prepare>") || strings.Contains(s, "SET last_seen = excluded.last_seen")
		})
		if len(trips) > most[name] {
			most[name], seen[name] = len(trips), trips
		}
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &v))
		return v
	}
	callEveryTool(roots, call)
	var report strings.Builder
	for _, tool := range a.k.Tools().List() {
		require.Positive(t, most[tool.Name], "%s was never called: add it to callEveryTool", tool.Name)
		fmt.Fprintf(&report, "%-12s %2d (budget %d)\n  %s\n", tool.Name, most[tool.Name], tool.RoundTrips,
			strings.Join(shorten(seen[tool.Name]), "\n  "))
	}
	t.Logf("round trips per call:\n%s", report.String())
	for _, tool := range a.k.Tools().List() {
		require.Equal(t, tool.RoundTrips, most[tool.Name],
			"%s: its most expensive call made %d round trips and its budget is %d; what it sent:\n  %s",
			tool.Name, most[tool.Name], tool.RoundTrips, strings.Join(shorten(seen[tool.Name]), "\n  "))
	}
}

// shorten is each statement on one line, cut to a readable length.
func shorten(sqls []string) []string {
	out := make([]string, len(sqls))
	for i, s := range sqls {
		s = strings.Join(strings.Fields(s), " ")
		if len(s) > 160 {
			s = s[:160] + "…"
		}
		out[i] = s
	}
	return out
}
