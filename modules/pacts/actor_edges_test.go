package pacts_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// A refusal at the Admin API's role gate is logged with a payload naming
// exactly what the person tried to touch: the pact always, the seat's key
// or the decision when the path has one, and no empty field for a path
// parameter the operation does not have.
func TestAGateRefusalsPayloadNamesOnlyTheSeatOrDecisionTried(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Tone?", "Warm", "Dry")
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/close", nil), http.StatusForbidden, "forbidden")
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/seats/@bram/pause", nil), http.StatusForbidden, "forbidden")
	refused(t, f.adm("vic", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Warm"}), http.StatusForbidden, "forbidden")

	payload := func(action string) map[string]any {
		t.Helper()
		var raw string
		require.NoError(t, f.DB.NewRaw(`SELECT p.content::text FROM entries e JOIN payloads p ON p.id = e.payload_ref
			WHERE e.actor = 'human:vic' AND e.outcome = 'forbidden' AND e.action = ?`, action).Scan(context.Background(), &raw))
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(raw), &out))
		return out
	}
	require.Equal(t, map[string]any{"pact_id": id}, payload("admin.pact.close"))
	require.Equal(t, map[string]any{"pact_id": id, "key": "@bram"}, payload("admin.pact.pause_seat"))
	require.Equal(t, map[string]any{"pact_id": id, "decision_id": d}, payload("admin.pact.answer"))
	f.VerifyLog()
}

// Logging a gate refusal that succeeds is not a failure: the person gets
// the refusal, the entry is on the pact's record, and the board logs no
// error about recording it (an error there means the log missed one).
func TestARecordedGateRefusalLogsNoError(t *testing.T) {
	logs := &logtest.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Error})
	f := setupWith(t, kerneltest.Options{Logger: logger}, pacts.Options{})
	id := f.pact(t)
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/close", nil), http.StatusForbidden, "forbidden")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE actor = 'human:vic' AND action = 'admin.pact.close'
		AND outcome = 'forbidden' AND project_id = 'web'`), "the refusal is logged on the pact's project")
	require.NotContains(t, logs.String(), "record a refused admin call", "recording the refusal logged no error")
}

// A person's write through the Admin API answers, as an agent's does, with
// what others wrote in the pact since the person's last write: the agent's
// message is in it once, and the person's next write has nothing new.
func TestAPersonsWriteSaysWhatOthersWroteSince(t *testing.T) {
	f := setup(t)
	id := ok(t, f.adm("ana", "POST", "/pacts", map[string]any{"project_id": "web", "name": "Mixed", "purpose": "p", "prefix": "A",
		"invite": []any{map[string]any{"agent_id": "wanda", "prefix": "W"}}}))["pact_id"].(string)
	_, err := f.as("wanda", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Copy is ready."})
	require.NoError(t, err)

	var messages []string
	for _, n := range ok(t, f.adm("ana", "POST", "/pacts/"+id+"/messages", map[string]any{"body": "Thanks."}))["since_your_last_write"].([]any) {
		n := n.(map[string]any)
		require.Equal(t, "agent:wanda", n["actor"], "only others' writes are news")
		if n["kind"] == "message" {
			messages = append(messages, n["ref"].(string)+" "+n["excerpt"].(string))
		}
	}
	require.Equal(t, []string{"W-001 Copy is ready."}, messages)
	require.Equal(t, []any{}, ok(t, f.adm("ana", "PUT", "/pacts/"+id+"/handshake", map[string]any{"handshake": "Mornings."}))["since_your_last_write"],
		"nothing new since the person's last write")
}

// The command line's reads run as the person named and at the role the
// Admin API's operation needs: an owner's Jobs list and pact view show the
// pact, and a viewer asking for the questions only approvers answer, or
// someone who is no person of the board asking for the list, is refused.
func TestTheCommandLinesReadsRunAsThePersonAtTheOperationsRole(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	f.raise(t, "wanda", id, "Tone?", "Warm", "Dry")
	ctx := context.Background()

	jobs, err := f.mod.Jobs(ctx, "ana", "")
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Equal(t, id, jobs[0].ID)
	require.Equal(t, 1, jobs[0].OpenDecisions)
	shown, err := f.mod.Show(ctx, "ana", id)
	require.NoError(t, err)
	require.NotNil(t, shown)
	require.Equal(t, id, shown.Pact.ID)
	questions, err := f.mod.Questions(ctx, "ana", false)
	require.NoError(t, err)
	require.Len(t, questions, 1)

	// A refusal answers no list, not an empty one a caller could take for
	// "no pacts" or "no questions".
	questions, err = f.mod.Questions(ctx, "vic", false)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "vic is viewer; this needs approver")
	require.Nil(t, questions)
	jobs, err = f.mod.Jobs(ctx, "nobody", "")
	require.Equal(t, errs.Forbidden, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "nobody is not a registered human")
	require.Nil(t, jobs)
}

// The command line's writes answer what the Admin API's operations answer
// and pass on their refusals: a viewer's close or Undo is refused and
// changes nothing; the owner's Undo puts back the zone and names the pact,
// and the owner's close says ok and closes the pact.
func TestTheCommandLinesCloseAndUndoAnswerOrRefuse(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	ctx := context.Background()
	for _, body := range []string{"first", "second"} {
		_, err := f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": body})
		require.NoError(t, err)
	}
	entry, err := strconv.ParseInt(entryID(f.change(t, pacts.ToolUpdateSection)), 10, 64)
	require.NoError(t, err)

	undone, err := f.mod.UndoChange(ctx, "vic", entry)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err), "%v", err)
	require.Nil(t, undone)
	zones, _ := f.read(t, id)
	require.Equal(t, "second", zones["@wanda"], "a refused Undo changes nothing")
	undone, err = f.mod.UndoChange(ctx, "ana", entry)
	require.NoError(t, err)
	require.NotNil(t, undone)
	require.Equal(t, id, undone.PactID)
	zones, _ = f.read(t, id)
	require.Equal(t, "first", zones["@wanda"])

	closed, err := f.mod.ClosePact(ctx, "vic", id)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err), "%v", err)
	require.Nil(t, closed)
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pacts WHERE id = ? AND closed_at IS NOT NULL`, id), "a refused close changes nothing")
	closed, err = f.mod.ClosePact(ctx, "ana", id)
	require.NoError(t, err)
	require.NotNil(t, closed)
	require.True(t, closed.OK)
	require.Positive(t, closed.Cursor)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pacts WHERE id = ? AND closed_at IS NOT NULL`, id))
}

// The module may be made with no options at all: every option then takes
// its default, and a board with it starts and answers the Jobs list.
func TestAModuleMadeWithoutOptionsServes(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{}, pacts.New())
	w.Person("", "ana", identity.Owner)
	r := w.Admin("ana", "GET", "/pacts", "")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, []any{}, r.Body["pacts"], r.Raw)
}

// Without Options.Retries a failing webhook send is retried after 10, 20,
// 40, 80 and 150 seconds (about five minutes) and then fails for good. Each
// wait is read off the send as the failed attempt leaves it, between the
// database's clock just before and just after the attempt; the test then
// makes the send due at once, as if the wait had passed.
func TestAFailingWebhookSendIsRetriedOnTheDefaultWaits(t *testing.T) {
	r := newReceiver(t)
	f := heldWebhookWorld(t, r, pacts.Options{})
	id := webhookOn(t, f, r)
	r.status.Store(http.StatusInternalServerError)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Never accepted."})
	require.NoError(t, err)

	ctx := context.Background()
	dbNow := func() (now time.Time) {
		require.NoError(t, f.DB.NewRaw(`SELECT now()`).Scan(ctx, &now))
		return now
	}
	for i, wait := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 150 * time.Second} {
		before := dbNow()
		n, err := f.mod.DeliverDue(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "attempt %d: one send is tried once", i+1)
		after := dbNow()
		var next time.Time
		var attempts int
		require.NoError(t, f.DB.NewRaw(`SELECT next_attempt_at, attempts FROM pact_sends WHERE agent_id = 'bram' AND dead_at IS NULL`).
			Scan(ctx, &next, &attempts))
		require.Equal(t, i+1, attempts)
		require.False(t, next.Before(before.Add(wait)), "attempt %d: the next is %s after it at least", i+1, wait)
		require.False(t, next.After(after.Add(wait)), "attempt %d: the next is %s after it at most", i+1, wait)
		f.Exec(`UPDATE pact_sends SET next_attempt_at = now() WHERE agent_id = 'bram'`)
	}
	n, err := f.mod.DeliverDue(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND dead_at IS NOT NULL AND attempts = 6`),
		"the sixth failure is the last")
	require.Len(t, r.got, 6, "the receiver got the one delivery six times")
}

// Tick is the longest an idle webhook worker sleeps without a wake: with
// nothing pending and no pact events, a worker whose tick is short looks
// for a due send again and again.
func TestAnIdleWebhookWorkerLooksAgainEachTick(t *testing.T) {
	f := setupWith(t, kerneltest.Options{Events: true}, pacts.Options{Tick: 20 * time.Millisecond})
	looks, _ := watchLooks(t, f)
	runWorkers(t, f)
	eventually(t, "the idle worker looks five times", func() bool { return looks.Load() >= 5 })
}

// Without Options.Lease a worker holds the send it claimed for a minute:
// while its post is in flight (the receiver holds it), the send's lease
// runs out a minute after the claim, between the database's clock before
// the claim and while it is held, so no other worker takes it meanwhile.
func TestAClaimedWebhookSendIsLeasedForAMinute(t *testing.T) {
	r := newReceiver(t)
	f := heldWebhookWorld(t, r, pacts.Options{})
	id := webhookOn(t, f, r)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Held in flight."})
	require.NoError(t, err)

	// The receiver answers only once its deliveries have room: filled up,
	// it holds the post until the test takes them.
	filler := cap(r.got) - len(r.got)
	for range filler {
		r.got <- delivered{}
	}
	t.Cleanup(func() {
		for len(r.got) > 0 {
			<-r.got
		}
	})
	ctx := context.Background()
	var before time.Time
	require.NoError(t, f.DB.NewRaw(`SELECT now()`).Scan(ctx, &before))
	done := make(chan int, 1)
	go func() {
		n, _ := f.mod.DeliverDue(ctx)
		done <- n
	}()
	eventually(t, "the send is claimed", func() bool {
		return f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND attempts = 1`) == 1
	})
	var expires, now time.Time
	require.NoError(t, f.DB.NewRaw(`SELECT lease_expires_at, now() FROM pact_sends WHERE agent_id = 'bram'`).Scan(ctx, &expires, &now))
	for range filler {
		<-r.got
	}
	require.Equal(t, "Held in flight.", eventOf(t, r.next(t))["excerpt"])
	require.Equal(t, 1, <-done, "the one send was attempted")
	require.False(t, expires.Before(before.Add(time.Minute)), "the lease runs a minute from the claim at least: %s", expires.Sub(before))
	require.False(t, expires.After(now.Add(time.Minute)), "and a minute at most: %s", expires.Sub(now))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND sent_at IS NOT NULL AND lease_expires_at IS NULL`))
}

// Without Options.Tick an idle webhook worker with nothing pending sleeps
// (up to 30 s) until a pact event wakes it: it does not keep looking at
// the queue. The count is of the worker's look for its next due send over
// a second after its first: a wake still on its way (a reconnect of the
// events listener wakes every waiter) may add a few; a worker that does
// not sleep makes hundreds. Slowness can only lower the count.
func TestAnIdleWebhookWorkerSleepsByDefault(t *testing.T) {
	f := setupWith(t, kerneltest.Options{Events: true}, pacts.Options{})
	looks, _ := watchLooks(t, f)
	runWorkers(t, f)
	eventually(t, "the worker looks for its next send", func() bool { return looks.Load() >= 1 })
	<-time.After(time.Second) // a window to watch, not a wait for an outcome
	require.LessOrEqual(t, looks.Load(), int64(5), "an idle worker looked for its next send %d times in a second", looks.Load())
}

// Options.NudgeEvery is how often the nudge worker looks for unread
// messages: with it short, a message that goes unread past the owner's
// threshold after the worker's first look is nudged by a later look, with
// no sweep run by hand. The worker logs the looks that nudged someone, with
// how many they told, and not the many that found nothing.
func TestTheNudgeWorkerNudgesOnALaterLookAndSaysSo(t *testing.T) {
	c := &clock{at: time.Now()}
	logs := &logtest.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
	f := setupWith(t, kerneltest.Options{Now: c.now, Events: true, Logger: logger}, pacts.Options{NudgeEvery: 20 * time.Millisecond})
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Anyone?"})
	require.NoError(t, err)
	var sweeps atomic.Int64
	stop := f.DB.Watch(func(sql string) {
		if strings.Contains(sql, "nudged_upto = due.upto") {
			sweeps.Add(1)
		}
	})
	t.Cleanup(stop)
	runWorkers(t, f)
	eventually(t, "the worker's first look", func() bool { return sweeps.Load() >= 1 })
	require.Zero(t, f.nudges("ana"), "not yet 30 minutes")
	c.add(31 * time.Minute)
	eventually(t, "a later look nudges ana", func() bool { return f.nudges("ana") == 1 })
	const told = "nudged pact owners of unread messages"
	eventually(t, "the look that nudged is logged", func() bool { return logs.Contains(told) })
	looks := sweeps.Load()
	eventually(t, "more looks find nothing", func() bool { return sweeps.Load() >= looks+3 })
	var lines []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, told) {
			lines = append(lines, strings.TrimSpace(line[strings.Index(line, told):]))
		}
	}
	require.Equal(t, []string{told + ": count=1"}, lines, "only the look that nudged is logged")
}

// A nudge sweep that fails while the board runs is the worker's failure:
// the kernel logs it and restarts the worker, rather than the worker
// ending as if its work were done. The board's clock set past what the
// database can store makes every sweep fail.
func TestAFailingNudgeSweepFailsTheWorker(t *testing.T) {
	c := &clock{at: time.Now()}
	logs := &logtest.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
	f := setupWith(t, kerneltest.Options{Now: c.now, Events: true, Logger: logger}, pacts.Options{})
	c.set(time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC))
	_, err := f.mod.SweepNudges(context.Background())
	require.Error(t, err, "the sweep cannot store the clock's time")
	runWorkers(t, f)
	eventually(t, "the nudge worker's failure is logged", func() bool {
		line := logs.Line("worker failed; restarting")
		return strings.Contains(line, "worker=pacts.nudges")
	})
	require.False(t, logs.Contains("pacts.nudges: worker finished"), "the nudge worker did not end as done: %s", logs.String())
}

// At start the board seals again the pact webhooks still under a key that
// is no longer the active one, and says how many it sealed once it is
// done; a start that finds none to seal says nothing of it.
func TestTheBoardSaysHowManyWebhooksItResealedAtStart(t *testing.T) {
	for _, stale := range []bool{true, false} {
		logs := &logtest.Buffer{}
		logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
		f := setupWith(t, kerneltest.Options{Events: true, Logger: logger}, pacts.Options{Seal: sealBox(t, "k2", "k1")})
		if stale {
			old := sealBox(t, "k1")
			url, err := old.Seal("https://receiver.example/hook", "pact_delivery.url/bram")
			require.NoError(t, err)
			secret, err := old.Seal("whsec_c2VjcmV0", "pact_delivery.secret/bram")
			require.NoError(t, err)
			f.Exec(`INSERT INTO pact_delivery (agent_id, org_id, mode, url, secret) VALUES ('bram', 'default', 'webhook', ?, ?)`, url, secret)
		}
		runWorkers(t, f)
		eventually(t, "the reseal is done", func() bool { return logs.Contains("pacts.reseal: worker finished") })
		const said = "sealed pact webhooks under the board's active key"
		if !stale {
			require.False(t, logs.Contains(said), "nothing was sealed: %s", logs.String())
			continue
		}
		require.Contains(t, logs.Line(said), said+": webhooks=1")
		var url string
		require.NoError(t, f.DB.NewRaw(`SELECT url FROM pact_delivery WHERE agent_id = 'bram'`).Scan(context.Background(), &url))
		got, err := sealBox(t, "k2").Open(url, "pact_delivery.url/bram")
		require.NoError(t, err, "sealed under the active key")
		require.Equal(t, "https://receiver.example/hook", got)
	}
}
