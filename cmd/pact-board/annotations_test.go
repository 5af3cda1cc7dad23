package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
)

// rows is every row of every table of the board's schema, each as the
// digest of its text, by table: the state a call's effect is judged on.
// The tables come from the catalog, so a table added later is judged too.
type rows map[string]map[string]int

// bookkeeping are the tables a call may change whatever its effect, each
// for its reason (docs/mcp-tools.md, "Annotations"): the log, which every
// call writes, the last time an agent acted on a task, and who waits.
var bookkeeping = map[string]string{
	"entries": "the log: every call writes its entry", "payloads": "the log", "entry_queue": "the log",
	"entry_places": "the log", "chain_heads": "the log",
	"task_activity":  "when an agent last acted on a task, which keeps its claim from going stale",
	"agent_presence": "who is connected and waiting, which the console shows",
	"event_holders":  "who holds pact_events, whom a post is offered to",
}

// volatile are columns left out of a row's text, each for its reason: the
// board writes them apart from calls, on its own schedule, or they are the
// read marks a reading call sets on what it read.
var volatile = map[string][]string{
	"agents": {"last_seen"}, // stamped each second after calls (identity.Service.Seen)
	"notifications": {"attempts", "next_attempt_at", "lease_owner", "lease_expires_at", "sent_at", "dead_at",
		"last_error"}, // the outbox's delivery, by its workers
	"task_messages": {"read_at"}, // read marks
	"inbox":         {"read_at"},
	// A seat's cursors into the pact's feed (what it has read, where it last
	// wrote) and the counter its messages are numbered by.
	"pact_seats": {"read_upto", "write_upto", "next_number"},
}

func snapshotRows(t *testing.T, d *db.DB) rows {
	t.Helper()
	ctx := context.Background()
	var tables []string
	require.NoError(t, d.NewRaw(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname`).Scan(ctx, &tables))
	out := rows{}
	for _, table := range tables {
		drop := "'{}'::text[]"
		if cols := volatile[table]; len(cols) > 0 {
			drop = "ARRAY['" + strings.Join(cols, "','") + "']"
		}
		var digests []string
		require.NoError(t, d.NewRaw(fmt.Sprintf(`SELECT md5((to_jsonb(t) - %s)::text) FROM %q t`, drop, table)).Scan(ctx, &digests))
		out[table] = map[string]int{}
		for _, r := range digests {
			out[table][r]++
		}
	}
	return out
}

// changed lists the tables whose rows differ, outside bookkeeping, and
// among them those where a row that was there is gone or different.
func changed(before, after rows) (tables, lost []string) {
	for table := range after {
		if _, ok := bookkeeping[table]; ok || maps.Equal(before[table], after[table]) {
			continue
		}
		tables = append(tables, table)
		for r, n := range before[table] {
			if after[table][r] < n {
				lost = append(lost, table)
				break
			}
		}
	}
	sort.Strings(tables)
	sort.Strings(lost)
	return tables, lost
}

// TestEveryToolDoesWhatItsAnnotationsSay calls every tool in the registry
// (callEveryTool) and judges each call on the rows of every table of the
// catalog before and after it: a tool annotated read-only changes no row
// outside the bookkeeping; one annotated as not destructive only adds rows;
// an idempotent one, called again with the same arguments, changes nothing
// more. The annotations the MCP client lists are the registration's
// (kernel.Tool.Hints), for every tool. TOOL-004.
func TestEveryToolDoesWhatItsAnnotationsSay(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	tools := map[string]*kernel.Tool{}
	for _, tool := range a.k.Tools().List() {
		tools[tool.Name] = tool
	}
	listed, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, listed.Tools, len(tools))
	for _, lt := range listed.Tools {
		h := tools[lt.Name].Hints()
		require.NotNil(t, lt.Annotations, lt.Name)
		require.Equal(t, h.ReadOnly, lt.Annotations.ReadOnlyHint, lt.Name)
		require.Equal(t, &h.Destructive, lt.Annotations.DestructiveHint, lt.Name)
		require.Equal(t, h.Idempotent, lt.Annotations.IdempotentHint, lt.Name)
		require.Equal(t, &h.OpenWorld, lt.Annotations.OpenWorldHint, lt.Name)
	}
	judged := map[string]bool{}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		before := snapshotRows(t, a.d)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		require.NoError(t, err)
		text := res.Content[0].(*mcp.TextContent).Text
		require.False(t, res.IsError, "%s: %s", name, text)
		after := snapshotRows(t, a.d)
		tool := tools[name]
		moved, lost := changed(before, after)
		switch h := tool.Hints(); {
		case h.ReadOnly:
			require.Empty(t, moved, "%s is annotated read-only and changed these tables", name)
		case !h.Destructive:
			require.Empty(t, lost, "%s is annotated as only adding, and changed or removed rows of these tables", name)
		}
		if tool.Hints().Idempotent && !tool.Hints().ReadOnly {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			require.NoError(t, err)
			again, _ := changed(after, snapshotRows(t, a.d))
			require.Empty(t, again, "%s is annotated idempotent and its second call changed these tables (%v)", name, res.Content)
		}
		judged[name] = true
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &v))
		return v
	}
	callEveryTool(roots, call)
	require.ElementsMatch(t, slices.Collect(maps.Keys(tools)), slices.Collect(maps.Keys(judged)),
		"every tool of the registry is called and judged: add the missing ones to callEveryTool")
}
