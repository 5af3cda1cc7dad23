package pacts_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
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

// 30 writes a minute per participant, then limit_exceeded saying when to
// try again; the refused write changes nothing, and other participants
// are not held back (PACT-005).
func TestWritesAreLimitedPerParticipant(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	for i := range pacts.WritesPerMinute {
		_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": fmt.Sprintf("loop %d", i)})
		require.NoError(t, err, "write %d", i+1)
	}
	_, err := f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "one more"})
	require.Equal(t, errs.LimitExceeded, errs.CodeOf(err))
	e, _ := errs.As(err)
	require.Contains(t, e.Message, "try again in")
	require.True(t, strings.HasSuffix(e.Message, "seconds"), e.Message)
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pact_sections WHERE body = 'one more'`))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE action = ? AND outcome = 'limit_exceeded'`, pacts.ToolUpdateSection))
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "I am not held back."})
	require.NoError(t, err)
}
