package pacts_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// psql runs statements in a psql session of their own on the World's
// database, the way an operator (or any code path) would reach the tables,
// and returns what psql printed and whether it succeeded.
func (f *fixture) psql(t *testing.T, statements string) (string, bool) {
	t.Helper()
	dir, err := pgcluster.FindBinaries() // the server's own bin directory holds its psql
	require.NoError(t, err)
	bin := filepath.Join(dir, "psql")
	out, err := exec.Command(bin, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", f.DSN, "-c", statements).CombinedOutput()
	return string(out), err == nil
}

// The thread is append-only in the database itself: a psql session that
// is not the board is refused every DELETE, TRUNCATE and UPDATE of a
// message but for its status, and the status only as its author
// (PACT-001).
func TestThePsqlSessionCannotRewriteTheThread(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "The true record."})
	require.NoError(t, err)
	for _, bad := range []struct{ sql, says string }{
		{`DELETE FROM pact_messages`, "append-only"},
		{`TRUNCATE pact_messages CASCADE`, "append-only"},
		{`UPDATE pact_messages SET body = 'A record that reads fine'`, "only its status may change"},
		{`UPDATE pact_messages SET number = 'W-009'`, "only its status may change"},
		{`UPDATE pact_messages SET status = 'done', body = 'x'`, "only its status may change"},
		{`UPDATE pact_messages SET status = 'done'`, "only its author"},
		{`SET pact.actor = 'agent:bram'; UPDATE pact_messages SET status = 'done'`, "only its author"},
		{`DELETE FROM pact_feed`, "append-only"},
		{`UPDATE pact_feed SET excerpt = 'x'`, "append-only"},
		{`DELETE FROM pact_seats`, "append-only"},
		{`DELETE FROM pacts`, "append-only"},
		{`UPDATE pacts SET rules = 'No rules'`, "frozen"},
	} {
		out, ok := f.psql(t, bad.sql)
		require.False(t, ok, "the database let through: %s", bad.sql)
		require.Contains(t, out, bad.says, bad.sql)
	}
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_messages WHERE body = 'The true record.' AND status = 'open'`))
	// The one change allowed: its author setting its status.
	out, ok := f.psql(t, `BEGIN; SET LOCAL pact.actor = 'agent:wanda'; UPDATE pact_messages SET status = 'done'; COMMIT`)
	require.True(t, ok, out)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_messages WHERE status = 'done'`))
}

// A decision's answer is written only on the person-side path, by an
// owner or approver, and only until the raising agent has read it; what
// was asked never changes (PACT-004).
func TestThePsqlSessionCannotAnswerADecision(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	out, err := f.as("wanda", pacts.ToolRaise, map[string]any{"pact_id": id, "question": "Blue or green?", "options": []any{"Blue", "Green"}})
	require.NoError(t, err)
	dec := out["decision_id"].(string)
	answer := func(prefix, who string) string {
		return fmt.Sprintf(`%s UPDATE pact_decisions SET answer = 'Blue', answer_kind = 'choice', answered_by = '%s', answered_at = now() WHERE id = '%s'`,
			prefix, who, dec)
	}
	for _, bad := range []struct{ sql, says string }{
		{answer("", "ana"), "only a person answers"},
		{answer("SET pact.actor = 'agent:wanda';", "ana"), "only a person answers"},
		{answer("SET pact.answering = 'person';", "vic"), "only an owner or approver"},
		{`UPDATE pact_decisions SET question = 'Red?'`, "cannot change"},
		{`DELETE FROM pact_decisions`, "append-only"},
		{`INSERT INTO pact_decisions (pact_id, seat_key, raised_by, question, options, feed_id, answer, answer_kind, answered_by)
			SELECT pact_id, seat_key, raised_by, 'Q', options, feed_id, 'A', 'own_words', 'ana' FROM pact_decisions`, "unanswered"},
	} {
		out, ok := f.psql(t, bad.sql)
		require.False(t, ok, "the database let through: %s", bad.sql)
		require.Contains(t, out, bad.says, bad.sql)
	}
	got, ok := f.psql(t, answer("SET pact.answering = 'person';", "ana"))
	require.True(t, ok, got)
	_, err = f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	got, ok = f.psql(t, answer("SET pact.answering = 'person';", "ana"))
	require.False(t, ok, "an answer the agent has read is final")
	require.Contains(t, got, "has read the answer")
}

// Numbers are per prefix, gap-free and never shared, with 8 writers per
// prefix at once (PACT-002).
func TestNumbersStayGapFreeUnderConcurrentWriters(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	const writers, each = 8, 3
	var wg sync.WaitGroup
	failures := make(chan error, 2*writers*each)
	for _, agent := range []string{"wanda", "bram"} {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if _, err := f.as(agent, pacts.ToolPost, map[string]any{"pact_id": id, "body": fmt.Sprintf("%s %d.%d", agent, w, i)}); err != nil {
						failures <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Fatalf("a concurrent post failed: %v", err)
	}
	for _, prefix := range []string{"W", "B"} {
		var numbers []string
		rows, err := f.DB.QueryContext(t.Context(), `SELECT number FROM pact_messages WHERE pact_id = ? AND prefix = ?`, id, prefix)
		require.NoError(t, err)
		for rows.Next() {
			var n string
			require.NoError(t, rows.Scan(&n))
			numbers = append(numbers, n)
		}
		require.NoError(t, rows.Close())
		sort.Strings(numbers)
		want := make([]string, writers*each)
		for i := range want {
			want[i] = fmt.Sprintf("%s-%03d", prefix, i+1)
		}
		require.Equal(t, want, numbers, "prefix %s", prefix)
	}
}

// A seat's 31st write within a minute is refused, whatever kinds the 30
// were. The population: every tool wanda is served that takes a pact_id
// and that toolWrites classifies as a write (modules/pacts/service_record.go),
// each either counted by the limit (30 of it alone fill it, then every
// limited tool is refused) or named here with why the limit does not count
// it; a tool added later and named nowhere fails the test as unhandled.
func TestWritesAreLimitedPerParticipant(t *testing.T) {
	f := setup(t)
	counted := map[string]func(id string, i int) map[string]any{
		pacts.ToolPost: func(id string, i int) map[string]any {
			return map[string]any{"pact_id": id, "body": fmt.Sprintf("loop %d", i)}
		},
		pacts.ToolUpdateSection: func(id string, i int) map[string]any {
			return map[string]any{"pact_id": id, "body": fmt.Sprintf("zone %d", i)}
		},
		pacts.ToolRaise: func(id string, i int) map[string]any {
			return map[string]any{"pact_id": id, "question": fmt.Sprintf("Blue or green, %d?", i), "options": []any{"Blue", "Green"}}
		},
		pacts.ToolHandshake: func(id string, i int) map[string]any {
			return map[string]any{"pact_id": id, "handshake": fmt.Sprintf("mornings %d", i)}
		},
	}
	// Refused past the limit (it writes from a seat) but not counted: a
	// pact has at most pacts.MaxSeats seats, so invites are bounded anyway.
	refusedOnly := map[string]func(id string, i int) map[string]any{
		pacts.ToolInvite: func(id string, i int) map[string]any {
			return map[string]any{"pact_id": id, "key": "@vera", "prefix": "V"}
		},
	}
	exempt := map[string]string{
		pacts.ToolJoin:        "takes the seat: an unjoined seat writes nothing",
		pacts.ToolSetPaused:   "seat control, limited by role and seat (PACT-020), not by rate",
		pacts.ToolSetDelivery: "the agent's own delivery setting",
	}
	var tools []string
	for _, tool := range boardTools(t, f) {
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &schema))
		if _, ok := schema.Properties["pact_id"]; !ok || !pacts.ToolWrites(tool.Name) || slices.Contains(tools, tool.Name) {
			continue
		}
		tools = append(tools, tool.Name)
		_, c := counted[tool.Name]
		_, r := refusedOnly[tool.Name]
		_, e := exempt[tool.Name]
		require.True(t, c || r || e, "tool %s writes in a pact and is unhandled: say whether the rate limit counts it (PACT-005)", tool.Name)
	}
	for name := range counted {
		require.Contains(t, tools, name, "the population of writes")
	}
	limited := maps.Clone(counted)
	maps.Copy(limited, refusedOnly)
	refusals := map[string]int{}
	for kind, call := range counted {
		id := f.pact(t)
		for i := range pacts.WritesPerMinute {
			_, err := f.as("wanda", kind, call(id, i))
			require.NoError(t, err, "%s: write %d", kind, i+1)
		}
		for tool, refused := range limited {
			_, err := f.as("wanda", tool, refused(id, pacts.WritesPerMinute))
			require.Equal(t, errs.LimitExceeded, errs.CodeOf(err), "after 30 writes by %s, %s", kind, tool)
			e, _ := errs.As(err)
			require.Contains(t, e.Message, "try again in")
			require.True(t, strings.HasSuffix(e.Message, "seconds"), e.Message)
			refusals[tool]++
			require.Equal(t, refusals[tool], f.Count(`SELECT count(*) FROM entries WHERE action = ? AND outcome = 'limit_exceeded'`, tool),
				"after 30 writes by %s, %s is logged refused", kind, tool)
		}
		require.Equal(t, pacts.WritesPerMinute, f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ? AND seat_key = '@wanda' AND kind <> 'pact'`, id),
			"after 30 writes by %s, the refused writes changed nothing", kind)
		require.Equal(t, 0, f.Count(`SELECT count(*) FROM pact_seats WHERE pact_id = ? AND key = '@vera'`, id))
		_, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "I am not held back."})
		require.NoError(t, err, "after 30 writes by %s", kind)
	}
}
