package pacts_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// A person's view of a pact shows the latest 50 messages, and next_before
// points to the older page only when there is one: not for an empty
// thread, not for a thread of exactly one page, and for one message more
// it is the cursor of the oldest message shown.
func TestAPersonsViewPointsToOlderMessagesOnlyPastAFullPage(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	view := func() (map[string]any, []any, float64) {
		t.Helper()
		got := ok(t, f.adm("vic", "GET", "/pacts/"+id, nil))
		pact := got["pact"].(map[string]any)
		msgs, _ := pact["messages"].([]any)
		return pact, msgs, got["next_before"].(float64)
	}
	pact, msgs, before := view()
	require.Empty(t, msgs)
	require.EqualValues(t, 0, pact["message_count"])
	require.Zero(t, before, "an empty thread has no older page")

	// Two seats take turns: each stays under a seat's 30 writes a minute.
	post := func(i int) {
		t.Helper()
		_, err := f.as([]string{"wanda", "bram"}[i%2], pacts.ToolPost, map[string]any{"pact_id": id, "body": fmt.Sprintf("note %d", i)})
		require.NoError(t, err)
	}
	for i := range 50 {
		post(i)
	}
	pact, msgs, before = view()
	require.Len(t, msgs, 50)
	require.EqualValues(t, 50, pact["message_count"])
	require.Zero(t, before, "a thread of exactly one page has no older page")

	post(50)
	pact, msgs, before = view()
	require.Len(t, msgs, 50)
	require.EqualValues(t, 51, pact["message_count"])
	require.Equal(t, "note 1", msgs[0].(map[string]any)["body"], "the page is the latest 50")
	require.Equal(t, msgs[0].(map[string]any)["cursor"], before, "next_before is the oldest shown message's cursor")
}

// A person's answer to a decision is logged on the chain of the project
// of the decision's pact, as every other write to that pact is.
func TestAPersonsAnswerIsLoggedOnThePactsProject(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Ship Friday?", "Yes", "No")
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Yes"}))

	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.pact.answer' AND e.outcome = 'ok' AND e.project_id = 'web' AND p.content->>'decision_id' = ?`, d))
	f.VerifyLog()
}

// An answer in a person's own words is 1-4,000 characters, counted as
// characters: one of exactly 4,000 is stored as written, one of 4,001 is
// refused, also on the command line's path, which has no HTTP schema in
// front of it.
func TestAnAnswerInOwnWordsTakesUpTo4000Characters(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	longest := textOf(4000)
	d := f.raise(t, "wanda", id, "Why?", "Because")
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"answer": longest}))
	answer, kind := f.storedAnswer(t, d)
	require.Equal(t, longest, answer)
	require.Equal(t, pacts.AnswerOwnWords, kind)

	other := f.raise(t, "wanda", id, "Why not?", "Because")
	tooLong := longest + "x"
	_, err := f.mod.AnswerDecision(context.Background(), "ana", other, nil, &tooLong, false)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "an answer in your own words is 1-4,000 characters")
	answer, _ = f.storedAnswer(t, other)
	require.Empty(t, answer)
}

// A seat a person adds is named in the pact's feed by its key: "@" and the
// agent's id when no key is given, the key given otherwise.
func TestASeatAPersonAddsIsNamedInTheFeedByItsKey(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats", map[string]any{"agent_id": "vera", "prefix": "V"}))
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats", map[string]any{"human_id": "vic", "key": "@reviewer", "prefix": "R"}))

	seatRows := `SELECT count(*) FROM pact_feed WHERE pact_id = ? AND kind = 'seat' AND actor = 'human:ana'`
	require.Equal(t, 1, f.Count(seatRows+` AND ref = '@vera' AND excerpt = 'invited @vera'`, id))
	require.Equal(t, 1, f.Count(seatRows+` AND ref = '@reviewer' AND excerpt = 'invited @reviewer'`, id))
	require.Equal(t, 2, f.Count(seatRows, id))
}

// "Questions for you" says how long each decision has waited, in whole
// seconds of the board's clock since it was raised.
func TestQuestionsSayHowManySecondsADecisionWaited(t *testing.T) {
	c := &clock{at: time.Now()}
	f, _ := setupAt(t, c.now)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Ship Friday?", "Yes", "No")
	raised, err := time.Parse(time.RFC3339Nano, f.questions(t, "ana", false)[d]["raised_at"].(string))
	require.NoError(t, err)

	c.set(raised.Add(90*time.Second + 500*time.Millisecond))
	require.EqualValues(t, 90, f.questions(t, "ana", false)[d]["waited_seconds"])
}

// A seat is marked as yours only for the agent or person who sits in it:
// an agent sees its own seat so marked and no other, a person sees their
// own seat so marked, and a person with no seat sees none marked.
func TestOnlyYourOwnSeatIsMarkedAsYours(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats", map[string]any{"human_id": "vic", "prefix": "V"}))
	ok(t, f.adm("vic", "POST", "/pacts/"+id+"/join", nil))
	yours := func(seats []any) []string {
		t.Helper()
		var out []string
		for _, s := range seats {
			s := s.(map[string]any)
			if s["you"] == true {
				out = append(out, s["key"].(string))
			}
		}
		return out
	}

	got, err := f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	require.Len(t, got["seats"], 3)
	require.Equal(t, []string{"@wanda"}, yours(got["seats"].([]any)), "wanda's view")

	person := func(as string) []string {
		t.Helper()
		return yours(ok(t, f.adm(as, "GET", "/pacts/"+id, nil))["pact"].(map[string]any)["seats"].([]any))
	}
	require.Equal(t, []string{"@vic"}, person("vic"), "vic's view")
	require.Empty(t, person("ana"), "ana has no seat")
}
