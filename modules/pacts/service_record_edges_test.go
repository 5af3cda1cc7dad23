package pacts_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// recordPage is one page of pact's record as vic reads it: the entries'
// ids and actions, newest first, and next_before.
func (f *fixture) recordPage(t *testing.T, pact string, before int64, limit int) (ids []int64, actions []string, next int64) {
	t.Helper()
	page := ok(t, f.adm("vic", "GET", fmt.Sprintf("/pacts/%s/record?before=%d&limit=%d", pact, before, limit), nil))
	for _, e := range page["entries"].([]any) {
		e := e.(map[string]any)
		ids = append(ids, int64(e["id"].(float64)))
		actions = append(actions, e["action"].(string))
	}
	return ids, actions, int64(page["next_before"].(float64))
}

// logged appends an entry about pact to the log as bram, as the tool call
// action with outcome would have, and returns its id.
func (f *fixture) logged(t *testing.T, pact, action, outcome string) int64 {
	t.Helper()
	e, err := f.Log.Append(context.Background(), f.DB, ledger.Entry{Actor: "agent:bram", AgentID: "bram", ProjectID: "web",
		Action: action, Outcome: outcome, Payload: map[string]any{"pact_id": pact, "key": "@wanda", "body": "mine"}})
	require.NoError(t, err)
	return e.ID
}

// The record is read from the log 200 entries at a time, and a page of it
// is whole however the log's pages fall: a page whose first 200 log
// entries hold a read goes on to the next ones to fill it; a page filled
// exactly by 200 log entries with more behind them points to those; and a
// page filled by the pact's very first entries points nowhere.
func TestTheRecordPagesAcrossTheLogsPages(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, actions, next := f.recordPage(t, id, 0, 200)
	require.Equal(t, []string{pacts.ToolJoin, pacts.ToolCreate}, actions)
	require.Zero(t, next)

	refusals := make([]int64, 200) // oldest first
	for i := range refusals {
		refusals[i] = f.logged(t, id, pacts.ToolUpdateSection, "forbidden")
	}
	read := f.logged(t, id, pacts.ToolGet, ledger.OK)
	newest := f.logged(t, id, pacts.ToolUpdateSection, "forbidden")

	// The newest 200 log entries hold the read, which is left out: the page
	// takes one more from the next 200.
	ids, _, next := f.recordPage(t, id, 0, 200)
	require.Len(t, ids, 200, "the page is filled past the read")
	require.Equal(t, newest, ids[0])
	require.Equal(t, refusals[199], ids[1], "the read is not on the record")
	require.Equal(t, refusals[1], ids[199])
	require.Equal(t, refusals[1], next)

	// Before the read, 200 refusals fill the page exactly, and older
	// entries remain.
	ids, _, next = f.recordPage(t, id, read, 200)
	require.Len(t, ids, 200)
	require.Equal(t, refusals[199], ids[0])
	require.Equal(t, refusals[0], ids[199])
	require.Equal(t, refusals[0], next, "the join and the creation are older")

	// The creation is the record's first entry: nothing is older.
	_, actions, next = f.recordPage(t, id, refusals[0], 2)
	require.Equal(t, []string{pacts.ToolJoin, pacts.ToolCreate}, actions)
	require.Zero(t, next, "nothing is older than the pact's creation")
}

// The open-pact limit is 1-1,000 per project, both ends included: an owner
// may set either, and it is kept.
func TestTheOpenLimitTakesBothEnds(t *testing.T) {
	f := setup(t)
	for _, limit := range []int{1, 1000} {
		ok(t, f.adm("ana", "PUT", "/pact-settings", map[string]any{"open_limit": limit}))
		require.EqualValues(t, limit, ok(t, f.adm("vic", "GET", "/pact-settings", nil))["open_limit"])
	}
}

// "What the agents changed this week" names, for an agent's change on a
// task, the person whose approval of that task let it happen, and nobody
// for a task nobody approved. Tasks are another module's: the rows and log
// entries it would write are written directly.
func TestChangesNameWhoApprovedTheTask(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	task := func() string {
		var tid string
		require.NoError(t, f.DB.NewRaw(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
			VALUES (gen_random_uuid(), 'web', 'Deploy', 'wanda', ?, 'submitted') RETURNING id::text`, f.roots["wanda"]).Scan(ctx, &tid))
		return tid
	}
	approved, unapproved := task(), task()
	_, err := f.Log.Append(ctx, f.DB, ledger.Entry{Actor: "human:ana", ProjectID: "web", TaskID: approved,
		Action: "admin.task.approve", Payload: map[string]any{"task_id": approved, "approve": true}})
	require.NoError(t, err)
	for _, tid := range []string{approved, unapproved} {
		_, err := f.Log.Append(ctx, f.DB, ledger.Entry{Actor: "agent:wanda", AgentID: "wanda", ProjectID: "web", TaskID: tid,
			Action: "pact_claim", Payload: map[string]any{"task_id": tid}})
		require.NoError(t, err)
	}

	saidYes := map[string]any{}
	for _, c := range ok(t, f.adm("vic", "GET", "/pacts/changes", nil))["changes"].([]any) {
		c := c.(map[string]any)
		if tid, _ := c["entry"].(map[string]any)["task_id"].(string); tid != "" {
			saidYes[tid] = c["said_yes"]
		}
	}
	require.Equal(t, map[string]any{approved: "human:ana", unapproved: ""}, saidYes)
}

// An Undo answers what it did and the pact's feed after it: putting back
// a handshake note and waking a paused job each say so, with the cursor of
// the feed row the Undo added.
func TestUndoSaysWhatItDidAndWhereTheFeedIs(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	newestSeq := func() float64 {
		return float64(f.Count(`SELECT max(seq) FROM pact_feed WHERE pact_id = ?`, id))
	}
	for _, note := range []string{"mornings", "evenings"} {
		_, err := f.as("wanda", pacts.ToolHandshake, map[string]any{"pact_id": id, "handshake": note})
		require.NoError(t, err)
	}
	did := ok(t, f.adm("ana", "POST", f.undo(f.change(t, pacts.ToolHandshake)), nil))
	require.Equal(t, "Put back the handshake note of @wanda as it was before this change.", did["did"])
	require.Equal(t, newestSeq(), did["cursor"])

	_, err := f.as("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": true})
	require.NoError(t, err)
	did = ok(t, f.adm("ana", "POST", f.undo(f.change(t, pacts.ToolSetPaused)), nil))
	require.Equal(t, "Woke @bram's job, which agent:wanda had paused.", did["did"])
	require.Equal(t, newestSeq(), did["cursor"])
}

// A message and a zone each take up to 20,000 characters, counted as
// characters, not bytes: each at exactly 20,000 is kept whole, one more
// is refused.
func TestMessagesAndZonesTakeUpTo20000Characters(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	longest := textOf(20000)

	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": longest})
	require.NoError(t, err, "a message of 20,000 characters")
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": longest + "x"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_messages WHERE pact_id = ? AND body = ?`, id, longest))

	_, err = f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": longest})
	require.NoError(t, err, "a zone of 20,000 characters")
	_, err = f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": longest + "x"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	zones, _ := f.read(t, id)
	require.Equal(t, longest, zones["@wanda"])
}

// A decision's question is 1-2,000 characters and it offers 1-8 options of
// 1-500 characters each, counted as characters: a decision at every
// longest at once is raised whole, and one past any of them is refused; a
// refused option is named by its place in the list, counted from 1.
func TestADecisionsLimitsAreInclusive(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	options := func(n, chars int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprintf("%d", i) + textOf(chars-1)
		}
		return out
	}
	raise := func(question string, opts []any) error {
		_, err := f.as("wanda", pacts.ToolRaise, map[string]any{"pact_id": id, "question": question, "options": opts})
		return err
	}

	require.NoError(t, raise(textOf(2000), options(8, 500)), "the longest question, the most options, each the longest")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_decisions WHERE pact_id = ? AND question = ? AND cardinality(options) = 8`,
		id, textOf(2000)))

	third := options(8, 500)
	third[2] = options(3, 501)[2]
	for what, err := range map[string]error{
		"a question of 2,001 characters": raise(textOf(2001), options(8, 500)),
		"nine options":                   raise(textOf(2000), options(9, 500)),
		"an option of 501 characters":    raise(textOf(2000), third),
	} {
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%s: %v", what, err)
	}
	// The refusal counts the options from 1, as the caller lists them.
	require.ErrorContains(t, raise("Which?", third), "option 3 must be 1-500 characters")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_decisions WHERE pact_id = ?`, id))
}

// A handshake note takes up to 2,000 characters, counted as characters:
// one of exactly 2,000 is kept whole, one more is refused.
func TestAHandshakeNoteTakesUpTo2000Characters(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	longest := textOf(2000)
	_, err := f.as("wanda", pacts.ToolHandshake, map[string]any{"pact_id": id, "handshake": longest})
	require.NoError(t, err, "a note of 2,000 characters")
	_, err = f.as("wanda", pacts.ToolHandshake, map[string]any{"pact_id": id, "handshake": longest + "x"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	_, handshakes := f.read(t, id)
	require.Equal(t, longest, handshakes["@wanda"])
}
