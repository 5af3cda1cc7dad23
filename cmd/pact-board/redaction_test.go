package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/core/redact/redacttest"
)

// writtenColumns are the columns the session below must fill with corpus
// text: if one of them stays empty, the test no longer proves anything
// about it.
var writtenColumns = []string{
	"tasks.title", "tasks.body", "tasks.result", "tasks.defer_reason", "tasks.answer",
	"task_messages.body", "context_notes.title", "context_notes.body", "context_note_versions.title",
	"context_note_versions.body", "payloads.content", "notifications.title", "notifications.detail",
}

// TestNoCorpusSecretIsStoredAnywhere writes every secret shape of the
// corpus through every tool and the people's task decisions, then reads
// every text, varchar and json column the catalog lists, and a pg_dump of
// the whole database: no secret may be in either (docs/invariants.md
// SEC-005, docs/security.md finding 5).
func TestNoCorpusSecretIsStoredAnywhere(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	secrets, err := redacttest.Corpus()
	require.NoError(t, err)
	_, err = a.d.ExecContext(ctx, `UPDATE humans SET email = 'ana@example.com' WHERE id = 'ana'`)
	require.NoError(t, err)
	_, err = a.ident.AcceptInvitation(ctx, a.d, "ana", "ana@example.com", a.iss.URL, "sub-ana")
	require.NoError(t, err)
	person := a.iss.Token(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true,
		Audience: []string{a.cfg.AdminAudience}})
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		require.NoError(t, err)
		text := res.Content[0].(*mcp.TextContent).Text
		require.False(t, res.IsError, "%s: %s", name, text)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &v))
		return v
	}
	decide := func(task, verb string, body map[string]any) {
		t.Helper()
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		code, answer := send(t, a.URL, person, http.MethodPost, "/admin/api/tasks/"+task+"/"+verb, string(raw))
		require.Equal(t, http.StatusOK, code, "%s %s: %s", verb, task, answer)
	}

	root := roots["code-web"]
	for i, chunk := range corpusChunks(secrets, 250) {
		call("pact_note", map[string]any{"project_id": "web", "mandate_id": root, "key": fmt.Sprintf("leak-%d", i),
			"title": chunk, "body": chunk})
		post := func() string {
			return call("pact_post", map[string]any{"project_id": "web", "mandate_id": root, "title": chunk,
				"body": chunk})["task_id"].(string)
		}
		closed := post()
		call("pact_claim", map[string]any{"task_id": closed, "mandate_id": root})
		call("pact_message", map[string]any{"task_id": closed, "mandate_id": root, "to": "human", "body": chunk})
		call("pact_report", map[string]any{"task_id": closed, "mandate_id": root, "status": "completed",
			"result": map[string]any{"handoff": "- Done: " + chunk, "text": chunk, "env": map[string]any{"note": chunk}}})
		deferred := post()
		call("pact_defer", map[string]any{"task_id": deferred, "mandate_id": root, "reason": chunk})
		decide(deferred, "resume", map[string]any{"answer": chunk})
		decide(deferred, "edit", map[string]any{"title": chunk, "body": chunk})
		asked := post()
		call("pact_claim", map[string]any{"task_id": asked, "mandate_id": root})
		call("pact_report", map[string]any{"task_id": asked, "mandate_id": root, "status": "input_required", "result": chunk})
		decide(asked, "message", map[string]any{"body": chunk})
	}
	callEveryTool(roots, call)

	columns := storedTextColumns(ctx, t, a)
	var filled, empty []string
	for _, c := range columns {
		var values []string
		require.NoError(t, a.d.NewRaw(fmt.Sprintf(`SELECT %q::text FROM %q WHERE %q IS NOT NULL`, c.column, c.table, c.column)).
			Scan(ctx, &values), c.String())
		if len(values) > 0 {
			filled = append(filled, c.String())
		} else {
			empty = append(empty, c.String())
		}
		all := strings.Join(values, "\n")
		for _, s := range secrets {
			require.NotContains(t, all, s.Secret, "%s stores %s in clear", c, s.Name)
		}
	}
	for _, want := range writtenColumns {
		require.Contains(t, filled, want, "the session wrote nothing to %s", want)
	}
	t.Logf("%d stored text columns in the catalog, %d holding values after the session, none with a secret: %s",
		len(columns), len(filled), strings.Join(filled, ", "))
	t.Logf("left empty by the session (nothing an agent or a person writes through it): %s", strings.Join(empty, ", "))

	dump := pgDump(t, a.DSN)
	for _, s := range secrets {
		require.NotContains(t, dump, s.Secret, "pg_dump holds %s in clear", s.Name)
	}
}

// corpusChunks joins the corpus's texts into newline-separated chunks of at
// most max bytes (a longer text is a chunk of its own), short enough for a
// task title.
func corpusChunks(secrets []redacttest.Secret, max int) []string {
	var chunks []string
	var cur string
	for _, s := range secrets {
		text := strings.TrimSpace(s.Text)
		if cur != "" && len(cur)+1+len(text) > max {
			chunks, cur = append(chunks, cur), ""
		}
		if cur != "" {
			cur += "\n"
		}
		cur += text
	}
	return append(chunks, cur)
}

type column struct{ table, column string }

func (c column) String() string { return c.table + "." + c.column }

// storedTextColumns is every column of the public schema's tables whose
// type can hold text someone wrote: text, varchar, char, json, jsonb and
// arrays of them.
func storedTextColumns(ctx context.Context, t *testing.T, a *adminBoard) []column {
	t.Helper()
	var rows []struct {
		Table  string `bun:"table_name"`
		Column string `bun:"column_name"`
	}
	require.NoError(t, a.d.NewRaw(`SELECT c.table_name, c.column_name FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
		AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
			OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar', '_json', '_jsonb')))
		ORDER BY c.table_name, c.column_name`).Scan(ctx, &rows))
	out := make([]column, len(rows))
	for i, r := range rows {
		out[i] = column{r.Table, r.Column}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// pgDump is the data of the database dsn names, as pg_dump writes it; the
// pg_dump used is the one next to the cluster's own binaries.
func pgDump(t *testing.T, dsn string) string {
	t.Helper()
	bin, err := pgcluster.FindBinaries()
	require.NoError(t, err)
	out, err := exec.Command(filepath.Join(bin, "pg_dump"), "--data-only", "--no-owner", "--dbname", dsn).Output()
	var stderr string
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, stderr)
	require.Contains(t, string(out), "COPY public.tasks", "the dump holds the tasks")
	return string(out)
}
