package ledger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/pgtest"
)

func checkpointer(t *testing.T, entries int64, every time.Duration) (*ledger.Checkpoints, string) {
	t.Helper()
	s, vkey, err := logformat.NewSigner("board.test/pact-log/derived-1", bytes.Repeat([]byte{5}, 32))
	require.NoError(t, err)
	return &ledger.Checkpoints{Signer: s, Origin: "board.test/pact-log/", Entries: entries, Every: every}, vkey
}

// LOG-009: a chain is checkpointed once it grew by Entries, or at all once
// its last checkpoint is older than Every; each size is signed once.
func TestCheckpointsFollowGrowthAndAge(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	cp, vkey := checkpointer(t, 3, time.Hour)
	post := func() {
		appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"})
		integrate(t, d, l)
	}
	take := func() []int64 {
		signed, err := cp.Take(ctx, d, time.Now())
		require.NoError(t, err)
		var sizes []int64
		for _, s := range signed {
			require.Equal(t, "web", s.ChainKey)
			sizes = append(sizes, s.Size)
		}
		return sizes
	}
	post()
	require.Equal(t, []int64{1}, take(), "a chain never checkpointed is due at once")
	require.Empty(t, take(), "nothing grew")
	post()
	post()
	require.Empty(t, take(), "grew by 2 of 3, and the last is not an hour old")
	post()
	require.Equal(t, []int64{4}, take())

	cp.Every = 0
	post()
	require.Equal(t, []int64{5}, take(), "with no wait, any growth is due")

	latest, err := l.Latest(ctx, d, "web")
	require.NoError(t, err)
	trusted, err := logformat.Verifiers(vkey)
	require.NoError(t, err)
	c, err := logformat.Open(latest, trusted)
	require.NoError(t, err)
	require.Equal(t, "board.test/pact-log/web", c.Origin)
	require.Equal(t, int64(5), c.Size)
	var head string
	require.NoError(t, d.NewRaw(`SELECT last_hash FROM entry_chain_heads WHERE chain_key = 'web'`).Scan(ctx, &head))
	require.Equal(t, head, c.Head)
	_, err = l.Latest(ctx, d, "rocket")
	require.ErrorIs(t, err, ledger.ErrNoCheckpoint)

	_, err = d.ExecContext(ctx, `UPDATE log_checkpoints SET size = size + 1`)
	require.Equal(t, db.RestrictViolation, db.PgCode(err), "checkpoints are append-only")
}

// LOG-010: the attack checkpoints exist for. A superuser rewrites a payload
// in the middle of a chain, recomputes every later hash, moves the chain's
// head and signs new checkpoints with the board's own key: the database's
// verification passes and a bundle exported now agrees with itself. The
// checkpoints an outsider kept before the rewrite expose it, naming the
// first entry that differs.
func TestASavedCheckpointCatchesASuperuserRewrite(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	cp, vkey := checkpointer(t, 1, time.Hour)
	var saved []logformat.SavedCheckpoint
	var ids []int64
	for i := range 6 {
		a := appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "pact_post",
			Payload: map[string]any{"title": fmt.Sprintf("task %d", i)}})
		ids = append(ids, a.ID)
		integrate(t, d, l)
		signed, err := cp.Take(ctx, d, time.Now())
		require.NoError(t, err)
		for _, s := range signed { // what a witness keeps
			saved = append(saved, logformat.SavedCheckpoint{ChainKey: s.ChainKey, Note: s.Note})
		}
	}
	require.Len(t, saved, 6)
	erased, err := l.ErasePayload(ctx, d, ids[1])
	require.NoError(t, err)
	require.True(t, erased)

	export := func() []byte {
		var b bytes.Buffer
		_, err := l.Export(ctx, d, ledger.Scope{ProjectID: "web"}, []string{vkey}, logformat.NewWriter(&b), nil)
		require.NoError(t, err)
		return b.Bytes()
	}
	check := func(bundle []byte, withSaved bool) *logformat.Report {
		o := logformat.Options{Keys: []string{vkey}}
		if withSaved {
			o.Saved = saved
		}
		r, err := logformat.Verify(bytes.NewReader(bundle), o)
		require.NoError(t, err)
		return r
	}
	r := check(export(), true)
	require.True(t, r.OK, "%+v", r.Problems)
	require.Equal(t, int64(6), r.Entries)
	require.Equal(t, int64(1), r.Erased)

	rewrite(t, d, cp, ids[3])
	v, err := l.VerifyChain(ctx, d, "web", nil)
	require.NoError(t, err)
	require.True(t, v.OK, "the rewrite passes the database's own verification: %+v", v)
	forged := export()
	require.True(t, check(forged, false).OK, "the forged bundle agrees with itself and its re-signed checkpoints")

	r = check(forged, true)
	require.False(t, r.OK)
	first := r.Problems[0]
	require.Equal(t, ids[3], first.EntryID)
	require.Equal(t, int64(4), first.Position)
	require.Contains(t, first.Reason, "rewritten:")
	require.Contains(t, first.Reason, fmt.Sprintf("the first entry that differs is entry %d (position 4)", ids[3]))
}

// rewrite does what a superuser with the board's key can: entry target's
// payload changes, every hash from it on is recomputed, the head moves,
// and the chain's checkpoints are replaced by newly signed ones.
func rewrite(t *testing.T, d *db.DB, cp *ledger.Checkpoints, target int64) {
	ctx := context.Background()
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, `SET LOCAL session_replication_role = replica`) // no trigger fires
	require.NoError(t, err)
	forged := map[string]any{"title": "a task nobody posted"}
	raw, _ := json.Marshal(forged)
	hash, err := canon.Hash(forged)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `UPDATE payloads SET content = $1::jsonb WHERE id = (SELECT payload_ref FROM entries WHERE id = $2)`, string(raw), target)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `UPDATE entries SET payload_hash = $1 WHERE id = $2`, hash, target)
	require.NoError(t, err)

	rows, err := tx.Query(ctx, `SELECT e.id, e.project_id, e.task_id::text, e.agent_id, e.actor, e.mandate_chain::text[], e.action,
		e.payload_hash, e.outcome, e.at, pl.prev_hash FROM entries e JOIN entry_places pl ON pl.entry_id = e.id
		WHERE pl.chain_key = 'web' ORDER BY pl.seq`)
	require.NoError(t, err)
	type row struct {
		id                               int64
		project, task, agent             *string
		actor, action, payloadHash, outc string
		mandates                         []string
		at                               time.Time
		prev                             string
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		return x, r.Scan(&x.id, &x.project, &x.task, &x.agent, &x.actor, &x.mandates, &x.action, &x.payloadHash, &x.outc, &x.at, &x.prev)
	})
	require.NoError(t, err)
	prev := logformat.Genesis
	for _, x := range all {
		h := logformat.Hashed{ChainKey: []byte("web"), Actor: []byte(x.actor), Action: []byte(x.action),
			PayloadHash: []byte(x.payloadHash), Outcome: []byte(x.outc), At: x.at, PrevHash: []byte(prev)}
		if x.project != nil {
			h.ProjectID = []byte(*x.project)
		}
		if x.task != nil {
			h.TaskID = []byte(*x.task)
		}
		if x.agent != nil {
			h.AgentID = []byte(*x.agent)
		}
		for _, m := range x.mandates {
			h.MandateChain = append(h.MandateChain, []byte(m))
		}
		sum := h.Sum()
		_, err = tx.Exec(ctx, `UPDATE entry_places SET prev_hash = $1, hash = $2 WHERE entry_id = $3`, prev, sum, x.id)
		require.NoError(t, err)
		prev = sum
	}
	_, err = tx.Exec(ctx, `UPDATE entry_chain_heads SET last_hash = $1 WHERE chain_key = 'web'`, prev)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `DELETE FROM log_checkpoints WHERE chain_key = 'web'`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
	// Re-signed, one per size, as the board would have.
	for n := 1; n <= len(all); n++ {
		var head string
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT hash FROM entry_places WHERE chain_key = 'web' AND seq = $1`, n).Scan(&head))
		note, err := logformat.Sign(logformat.Checkpoint{Origin: cp.Origin + "web", Size: int64(n), Head: head, Time: time.Now()}, cp.Signer)
		require.NoError(t, err)
		_, err = d.Pool.Exec(ctx, `INSERT INTO log_checkpoints (chain_key, size, head_hash, taken_at, note) VALUES ('web', $1, $2, now(), $3)`,
			n, head, note)
		require.NoError(t, err)
	}
}

// LOG-011: every checkpoint reaches every witness, in order; a witness
// that failed gets what it missed on the next round, from where it failed.
func TestWitnessesGetEveryCheckpointInOrder(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	cp, _ := checkpointer(t, 1, time.Hour)
	var got []string
	failing := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c, err := logformat.ParseCheckpoint(strings.SplitN(string(body), "\n\n", 2)[0] + "\n")
		require.NoError(t, err)
		if failing && c.Size == 3 { // the third fails, once: the fourth must wait for it
			failing = false
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		got = append(got, fmt.Sprintf("%s %d", r.Header.Get(ledger.ChainHeader), c.Size))
	}))
	defer srv.Close()
	wit := &ledger.Witnesses{URLs: []string{srv.URL + "/witness?token=secret"}}
	require.NoError(t, wit.Register(ctx, d))
	for range 4 {
		appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"})
		integrate(t, d, l)
		_, err := cp.Take(ctx, d, time.Now())
		require.NoError(t, err)
	}
	n, err := wit.Deliver(ctx, d)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "secret", "a witness URL's token stays out of errors")
	require.Equal(t, 2, n)
	require.Equal(t, []string{"web 1", "web 2"}, got, "nothing after a failed checkpoint is sent before it")
	n, err = wit.Deliver(ctx, d)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, []string{"web 1", "web 2", "web 3", "web 4"}, got)
	n, err = wit.Deliver(ctx, d)
	require.NoError(t, err)
	require.Zero(t, n, "nothing is sent twice")
}

// LOG-011: a witness that is slow to answer holds up no transaction and no
// connection of the board's, and while one board sends it, another sends
// it nothing (the lease); once the send is over the cursor has moved.
func TestASlowWitnessHoldsNoTransaction(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	cp, _ := checkpointer(t, 1, time.Hour)
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // then net/http notices the client going away
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	wit := &ledger.Witnesses{URLs: []string{srv.URL + "/witness"}}
	require.NoError(t, wit.Register(ctx, d))
	appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"})
	integrate(t, d, l)
	_, err := cp.Take(ctx, d, time.Now())
	require.NoError(t, err)

	done := make(chan int, 1)
	go func() {
		n, err := wit.Deliver(ctx, d)
		assert.NoError(t, err)
		done <- n
	}()
	<-arrived
	var open int
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND (state LIKE 'idle in transaction%' OR backend_xid IS NOT NULL)`).Scan(ctx, &open))
	require.Zero(t, open, "no transaction is open while the witness answers")
	// Leased: this one sends nothing (and would otherwise wait on the
	// witness, until its deadline).
	second, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	n, err := wit.Deliver(second, d)
	require.NoError(t, err)
	require.Zero(t, n, "the witness is leased to the first delivery")
	close(release)
	require.Equal(t, 1, <-done)
	var through int64
	var leased bool
	require.NoError(t, d.NewRaw(`SELECT delivered_through, leased_until IS NOT NULL FROM log_witnesses`).Scan(ctx, &through, &leased))
	require.Positive(t, through)
	require.False(t, leased, "the lease ends with the delivery")
}
