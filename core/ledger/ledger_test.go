package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// seed makes an organization "acme" with a person, a project and an agent,
// and a project "web" in the default organization.
func seed(t *testing.T, d *db.DB) {
	t.Helper()
	_, err := d.ExecContext(context.Background(), `
		INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner'), ('bo', 'acme', 'Bo', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('web', 'default', 'Web', 'ana'), ('rocket', 'acme', 'Rocket', 'bo');
		INSERT INTO agents (id, org_id, owner, client) VALUES ('code-web', 'default', 'ana', 'code'), ('code-rocket', 'acme', 'bo', 'code');`)
	require.NoError(t, err)
}

func appendOne(t *testing.T, d *db.DB, l *ledger.Log, e ledger.Entry) *ledger.Appended {
	t.Helper()
	var out *ledger.Appended
	require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		var err error
		out, err = l.Append(ctx, tx, e)
		return err
	}))
	return out
}

func TestChainsArePerProjectAndPerOrganization(t *testing.T) {
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	a := appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"})
	b := appendOne(t, d, l, ledger.Entry{AgentID: "code-rocket", Actor: "agent:code-rocket", Action: "y"})
	c := appendOne(t, d, l, ledger.Entry{OrgID: "acme", Actor: "system", Action: "z"})
	e := appendOne(t, d, l, ledger.Entry{Actor: "system", Action: "z"})
	require.Equal(t, []string{"web", "default"}, []string{a.ChainKey, a.OrgID})
	require.Equal(t, []string{"_system:acme", "acme"}, []string{b.ChainKey, b.OrgID}, "no project: the agent's organization's chain")
	require.Equal(t, "_system:acme", c.ChainKey)
	require.Equal(t, []string{"_system", "default"}, []string{e.ChainKey, e.OrgID})

	vs, err := l.VerifyOrg(context.Background(), d, "acme", nil)
	require.NoError(t, err)
	require.Equal(t, []ledger.Verdict{{ChainKey: "_system:acme", OK: true, Checked: 2}}, vs)
}

func TestDatabaseRefusesEditsToTheLog(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x", Payload: map[string]any{"a": 1}})
	integrate(t, d, l)
	for _, stmt := range []string{
		`UPDATE entries SET action = 'forged'`,
		`DELETE FROM entries`,
		`TRUNCATE entries CASCADE`,
		`UPDATE entry_places SET hash = repeat('f', 64)`,
		`DELETE FROM entry_places`,
		`TRUNCATE entry_places`,
		`DELETE FROM payloads`,
		`UPDATE payloads SET content = '{"a": 2}'`,
		// Setting erased_at in the same UPDATE does not make a rewrite an
		// erasure: only content set to NULL is one (LOG-001).
		`UPDATE payloads SET content = '{"a": 2}', erased_at = now()`,
	} {
		_, err := d.ExecContext(ctx, stmt)
		require.Error(t, err, stmt)
		require.Equal(t, db.RestrictViolation, db.PgCode(err), stmt)
	}
}

// The unique (chain_key, prev_hash) and (chain_key, seq) are the backstop
// under the integrator's lock (LOG-002): a second successor of an entry,
// or a second entry in one place, written straight to the table past
// ledger_integrate, cannot be stored.
func TestDatabaseRefusesASecondSuccessor(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x", Payload: map[string]any{"n": 1}})
	appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x", Payload: map[string]any{"n": 2}})
	integrate(t, d, l)
	third := appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x", Payload: map[string]any{"n": 3}})
	for _, forge := range []string{
		`SELECT chain_key, seq + 10, ?, prev_hash, repeat('f', 64) FROM entry_places WHERE chain_key = 'web' AND seq = 2`,
		`SELECT chain_key, seq, ?, repeat('e', 64), repeat('f', 64) FROM entry_places WHERE chain_key = 'web' AND seq = 2`,
	} {
		_, err := d.ExecContext(ctx, `INSERT INTO entry_places (chain_key, seq, entry_id, prev_hash, hash) `+forge, third.ID)
		require.Error(t, err, forge)
		require.Equal(t, db.UniqueViolation, db.PgCode(err), forge)
	}
}

// integrate places every queued entry, as the board's integrator does.
func integrate(t *testing.T, d *db.DB, l *ledger.Log) int {
	t.Helper()
	n, err := l.Integrate(context.Background(), d, true)
	require.NoError(t, err)
	return n
}

// hashOf is entry id's hash in its chain.
func hashOf(t *testing.T, d *db.DB, id int64) string {
	t.Helper()
	var h string
	require.NoError(t, d.NewRaw(`SELECT hash FROM entry_places WHERE entry_id = ?`, id).Scan(context.Background(), &h))
	return h
}

func TestVerifyFindsTheFirstBrokenEntry(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, tamper, reason string
		brokenAt             bool
	}{
		{"contents", `UPDATE entries SET action = 'forged' WHERE id = %[2]d`, "entry contents do not match its hash", true},
		{"payload", `UPDATE payloads SET content = '{"n": 999}' WHERE id = (SELECT payload_ref FROM entries WHERE id = %[2]d)`, "payload does not match payload_hash", true},
		{"link", `UPDATE entry_places SET prev_hash = '%[1]s' WHERE entry_id = %[2]d`, "prev_hash does not match the previous entry", true},
		{"hash", `UPDATE entry_places SET hash = '%[1]s' WHERE entry_id = %[2]d`, "entry contents do not match its hash", true},
		{"missing tail", `DELETE FROM entry_places WHERE entry_id = (SELECT max(entry_id) FROM entry_places);
			DELETE FROM entries WHERE id = (SELECT max(id) FROM entries) -- %[1]s %[2]d`, "chain head does not match the last entry (entries missing?)", false},
		{"left out", `DELETE FROM entry_places WHERE entry_id >= %[2]d; DELETE FROM entries WHERE id > %[2]d;
			UPDATE entry_chain_heads SET last_hash = (SELECT hash FROM entry_places WHERE entry_id = %[2]d - 1),
				size = size - 3 -- %[1]s`, "entry is neither in its chain nor queued for it (left out of the chain)", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := pgtest.New(t)
			seed(t, d)
			l := ledger.New(nil)
			var ids []int64
			for i := range 5 {
				ids = append(ids, appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x", Payload: map[string]any{"n": i}}).ID)
			}
			v, err := l.VerifyChain(ctx, d, "web", nil)
			require.NoError(t, err)
			require.True(t, v.OK)
			_, err = d.ExecContext(ctx, `ALTER TABLE entries DISABLE TRIGGER USER; ALTER TABLE payloads DISABLE TRIGGER USER;
				ALTER TABLE entry_places DISABLE TRIGGER USER`)
			require.NoError(t, err)
			_, err = d.ExecContext(ctx, fmt.Sprintf(tc.tamper, strings.Repeat("f", 64), ids[2]))
			require.NoError(t, err)
			v, err = l.VerifyChain(ctx, d, "web", nil)
			require.NoError(t, err)
			require.False(t, v.OK)
			require.Equal(t, tc.reason, v.Reason)
			if tc.brokenAt {
				require.NotNil(t, v.BrokenAt)
				require.Equal(t, ids[2], *v.BrokenAt)
			} else {
				require.Nil(t, v.BrokenAt)
			}
		})
	}
}

func TestErasedPayloadStillVerifies(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	a := appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "note", Payload: map[string]any{"body": "personal data"}})
	appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"})
	var erased bool
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) { erased, err = l.ErasePayload(ctx, tx, a.ID); return }))
	require.True(t, erased)
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) { erased, err = l.ErasePayload(ctx, tx, a.ID); return }))
	require.False(t, erased, "a second erase changes nothing")
	var content *string
	require.NoError(t, d.NewRaw(`SELECT p.content::text FROM payloads p JOIN entries e ON e.payload_ref = p.id WHERE e.id = ?`, a.ID).Scan(ctx, &content))
	require.Nil(t, content)
	v, err := l.VerifyChain(ctx, d, "web", nil)
	require.NoError(t, err)
	require.True(t, v.OK, v.Reason)
	require.EqualValues(t, 2, v.Checked)
}

func TestPayloadsAreRedactedBeforeHashing(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	a := appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x",
		Payload: map[string]any{"password": "hunter2", "text": "login with password=hunter2 now", "nul": "a\x00b"}})
	var content string
	require.NoError(t, d.NewRaw(`SELECT p.content::text FROM payloads p JOIN entries e ON e.payload_ref = p.id WHERE e.id = ?`, a.ID).Scan(ctx, &content))
	require.NotContains(t, content, "hunter2")
	require.Contains(t, content, `"password": "[REDACTED]"`)
	v, err := l.VerifyChain(ctx, d, "web", nil)
	require.NoError(t, err)
	require.True(t, v.OK, v.Reason)
}

func TestConcurrentAppendsNeverForkAChain(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	const writers, each = 8, 15
	appendConcurrently(t, d, l, writers, each, func(int) string { return "web" })
	v, err := l.VerifyChain(ctx, d, "web", nil)
	require.NoError(t, err)
	require.True(t, v.OK, v.Reason)
	require.EqualValues(t, writers*each, v.Checked)
}

// appendConcurrently runs writers goroutines, each appending each entries,
// one transaction per entry, writer w to project(w)'s chain, and returns
// when all are done; an append that fails fails t.
func appendConcurrently(t *testing.T, d *db.DB, l *ledger.Log, writers, each int, project func(w int) string) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				err := d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
					_, err := l.Append(ctx, tx, ledger.Entry{ProjectID: project(w), Actor: "human:ana", Action: "x",
						Payload: map[string]any{"w": w, "i": i}})
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestVerifyReadsLongChainsPageByPage(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	const n = 2345
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for i := range n {
			if _, err := l.Append(ctx, tx, ledger.Entry{ProjectID: "web", Actor: "system", Action: "x", Payload: i}); err != nil {
				return err
			}
		}
		return nil
	}))
	var calls, seen int
	v, err := l.VerifyChain(ctx, d, "web", func(k int) { calls++; seen += k })
	require.NoError(t, err)
	require.True(t, v.OK)
	require.EqualValues(t, n, v.Checked)
	require.Equal(t, n, seen)
	require.Equal(t, 3, calls, "one progress call per page of 1000")
}

func TestRecordCommitsTheChangeWithItsEntry(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	err := l.Record(ctx, d, ledger.Entry{Actor: "human:ana", Action: "admin.project.flags"}, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		e.ProjectID = "web"
		_, err := tx.ExecContext(ctx, `UPDATE projects SET frozen = true WHERE id = 'web'`)
		return err
	})
	require.NoError(t, err)
	var outcome string
	require.NoError(t, d.NewRaw(`SELECT outcome FROM entries WHERE chain_key = 'web'`).Scan(ctx, &outcome))
	require.Equal(t, "ok", outcome)
}

func TestRecordLogsARefusalAndChangesNothingElse(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	// Bo (acme) names the default organization's project: the refusal is
	// logged in acme's chain only, and the write inside fn is rolled back.
	err := l.Record(ctx, d, ledger.Entry{OrgID: "acme", ProjectID: "web", Actor: "human:bo", Action: "admin.project.flags"},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
			if _, err := tx.ExecContext(ctx, `UPDATE projects SET frozen = true WHERE id = 'rocket'`); err != nil {
				return err
			}
			return errs.E(errs.NotFound, "project web does not exist")
		})
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	var frozen bool
	require.NoError(t, d.NewRaw(`SELECT frozen FROM projects WHERE id = 'rocket'`).Scan(ctx, &frozen))
	require.False(t, frozen, "a refused operation changes nothing")
	var rows []struct {
		ChainKey  string  `bun:"chain_key"`
		ProjectID *string `bun:"project_id"`
		Outcome   string  `bun:"outcome"`
	}
	require.NoError(t, d.NewRaw(`SELECT chain_key, project_id, outcome FROM entries`).Scan(ctx, &rows))
	require.Len(t, rows, 1)
	require.Equal(t, "_system:acme", rows[0].ChainKey)
	require.Nil(t, rows[0].ProjectID)
	require.Equal(t, "not_found", rows[0].Outcome)

	// An internal error is not a refusal: nothing is logged.
	err = l.Record(ctx, d, ledger.Entry{OrgID: "acme", Actor: "human:bo", Action: "x"},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error { return fmt.Errorf("disk on fire") })
	require.Error(t, err)
	var n int
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM entries`).Scan(ctx, &n))
	require.Equal(t, 1, n)
}

func TestHashIsPinned(t *testing.T) {
	d := pgtest.New(t)
	seed(t, d)
	at := time.Date(2026, 11, 29, 12, 0, 0, 123000, time.UTC)
	l := ledger.New(&ledger.Options{Now: func() time.Time { return at }})
	a := appendOne(t, d, l, ledger.Entry{ProjectID: "web", AgentID: "code-web", Actor: "agent:code-web", Action: "pact_post",
		Payload: map[string]any{"title": "Fix the login page", "cost": 1.5}})
	// Computed outside this code base, with Python's hashlib and json.dumps
	// (sort_keys, compact separators, ensure_ascii=False) over the fields that
	// docs/canonical-json.md lists: the Go hash must equal it byte for byte.
	integrate(t, d, l)
	require.Equal(t, "e8b4b0887471848761631c83689b6244b8e71ba76c2defaeb2792a6e7fa749c6", hashOf(t, d, a.ID))
}

// An organization with no log verifies to no verdicts, not to an error
// (docs/specs/behavior.md §13, test_tenancy); its chains appear with its
// first entry.
func TestAnOrganizationWithoutALogVerifiesToNothing(t *testing.T) {
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	vs, err := l.VerifyOrg(context.Background(), d, "acme", nil)
	require.NoError(t, err)
	require.Equal(t, []ledger.Verdict{}, vs, "an empty list, not nil: it is written as []")
	appendOne(t, d, l, ledger.Entry{OrgID: "acme", Actor: "system", Action: "z"})
	vs, err = l.VerifyOrg(context.Background(), d, "acme", nil)
	require.NoError(t, err)
	require.Equal(t, []ledger.Verdict{{ChainKey: "_system:acme", OK: true, Checked: 1}}, vs)
}

// A refusal's entry keeps the agent and project it names only when they are
// of the entry's organization; an entry that names no organization takes its
// agent's (RecordRefusal; LOG-008).
func TestARefusalIsAnchoredInItsOrganization(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	refuse := func(e ledger.Entry) (chain string, project, agent *string) {
		t.Helper()
		e.Actor, e.Action = "system", "x"
		require.Equal(t, errs.NotFound, errs.CodeOf(l.RecordRefusal(ctx, d, e, errs.E(errs.NotFound, "no"))))
		require.NoError(t, d.NewRaw(`SELECT chain_key, project_id, agent_id FROM entries ORDER BY id DESC LIMIT 1`).
			Scan(ctx, &chain, &project, &agent))
		return chain, project, agent
	}
	chain, _, agent := refuse(ledger.Entry{AgentID: "code-rocket"})
	require.Equal(t, "_system:acme", chain, "no organization: the agent's")
	require.Equal(t, "code-rocket", *agent)

	chain, _, agent = refuse(ledger.Entry{OrgID: "acme", AgentID: "code-web"})
	require.Equal(t, "_system:acme", chain)
	require.Nil(t, agent, "another organization's agent is dropped")

	chain, project, agent := refuse(ledger.Entry{OrgID: "acme", ProjectID: "rocket", AgentID: "code-rocket"})
	require.Equal(t, "rocket", chain)
	require.Equal(t, "rocket", *project, "its own project is kept")
	require.Equal(t, "code-rocket", *agent, "its own agent is kept")

	chain, project, agent = refuse(ledger.Entry{ProjectID: "rocket", AgentID: "ghost"})
	require.Equal(t, "rocket", chain, "no organization, no agent: the project's")
	require.Equal(t, "rocket", *project)
	require.Nil(t, agent, "an agent that does not exist is dropped")
}

// Progress is told of entries checked, never of none: a chain with no
// entries calls it not at all.
func TestVerifyOfAnEmptyChainReportsNoProgress(t *testing.T) {
	d := pgtest.New(t)
	calls := 0
	v, err := ledger.New(nil).VerifyChain(context.Background(), d, "no-such-chain", func(int) { calls++ })
	require.NoError(t, err)
	require.True(t, v.OK)
	require.Zero(t, calls)
}

// Entries selects by every filter, and a zero filter selects nothing out.
func TestEntriesFilters(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	t1 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := t1
	l := ledger.New(&ledger.Options{Now: func() time.Time { return now }})
	e1 := appendOne(t, d, l, ledger.Entry{ProjectID: "web", AgentID: "code-web", Actor: "agent:code-web", Action: "a", Payload: map[string]any{"k": 1}})
	now = t1.Add(time.Minute)
	e2 := appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "b", Outcome: "not_found", Payload: map[string]any{"k": 2}})
	now = t1.Add(2 * time.Minute)
	e3 := appendOne(t, d, l, ledger.Entry{OrgID: "default", Actor: "system", Action: "a", Payload: map[string]any{"k": 3}})
	t2 := t1.Add(time.Minute)
	ids := func(f ledger.Filter) []int64 {
		t.Helper()
		f.OrgID = "default"
		rs, err := l.Entries(ctx, d, f)
		require.NoError(t, err)
		out := []int64{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	require.Equal(t, []int64{e1.ID, e2.ID, e3.ID}, ids(ledger.Filter{Oldest: true}))
	require.Equal(t, []int64{e3.ID, e2.ID, e1.ID}, ids(ledger.Filter{}))
	require.Equal(t, []int64{e2.ID, e1.ID}, ids(ledger.Filter{ProjectID: "web"}))
	require.Equal(t, []int64{e1.ID}, ids(ledger.Filter{AgentID: "code-web"}))
	require.Equal(t, []int64{e3.ID, e1.ID}, ids(ledger.Filter{Action: "a"}))
	require.Equal(t, []int64{e2.ID}, ids(ledger.Filter{Outcome: "not_found"}))
	require.Equal(t, []int64{e2.ID}, ids(ledger.Filter{Refused: true}))
	require.Equal(t, []int64{e3.ID}, ids(ledger.Filter{PayloadContains: json.RawMessage(`{"k":3}`)}))
	require.Equal(t, []int64{e2.ID, e1.ID}, ids(ledger.Filter{Before: e3.ID}))
	require.Equal(t, []int64{e3.ID, e2.ID}, ids(ledger.Filter{From: &t2}))
	require.Equal(t, []int64{e2.ID, e1.ID}, ids(ledger.Filter{To: &t2}))
	require.Equal(t, []int64{e3.ID}, ids(ledger.Filter{Limit: 1}))
	require.Empty(t, ids(ledger.Filter{TaskID: "00000000-0000-0000-0000-000000000001"}))
	rs, err := l.Entries(ctx, d, ledger.Filter{OrgID: "default", Limit: 1})
	require.NoError(t, err)
	require.NotNil(t, rs[0].MandateChain, "no chain reads as [], never null")
}

// RecordPipelined has Record's outcomes: a change is logged ok with it, a
// refusal is logged with its code, and any other error logs nothing.
func TestRecordPipelinedLogsAsRecordDoes(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	m := metrics.New()
	l := ledger.New(&ledger.Options{Metrics: m})
	run := func(action string, fail error) error {
		return l.RecordPipelined(ctx, d, ledger.Entry{OrgID: "acme", Actor: "human:bo", Action: action}, nil,
			func(ctx context.Context, tx *db.Tx, e *ledger.Entry) error { return fail })
	}
	require.NoError(t, run("done", nil))
	require.Equal(t, errs.NotFound, errs.CodeOf(run("refused", errs.E(errs.NotFound, "no"))))
	require.Error(t, run("broken", fmt.Errorf("disk on fire")))
	var rows []struct {
		Action  string `bun:"action"`
		Outcome string `bun:"outcome"`
	}
	require.NoError(t, d.NewRaw(`SELECT action, outcome FROM entries ORDER BY id`).Scan(ctx, &rows))
	require.Len(t, rows, 2)
	require.Equal(t, "done", rows[0].Action)
	require.Equal(t, "ok", rows[0].Outcome)
	require.Equal(t, "refused", rows[1].Action)
	require.Equal(t, "not_found", rows[1].Outcome)
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	counted := map[string]float64{}
	for _, f := range families {
		if f.GetName() == "pact_log_appends_total" {
			for _, s := range f.GetMetric() {
				counted[s.GetLabel()[0].GetValue()] = s.GetCounter().GetValue()
			}
		}
	}
	require.Equal(t, map[string]float64{"ok": 1, "refused": 1}, counted, "a pipelined append is counted too")
}

// The reads around erasure and verification: an entry's organization, an
// organization's chains with their sizes, erasing the payloads that match,
// and every organization verified.
func TestEntryOrgChainsEraseMatchingAndVerifyAll(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	e1 := appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "note", Payload: map[string]any{"note": "n1", "text": "x"}})
	appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "note", Payload: map[string]any{"note": "n2", "text": "y"}})

	org, err := l.EntryOrg(ctx, d, e1.ID)
	require.NoError(t, err)
	require.Equal(t, "default", org)
	org, err = l.EntryOrg(ctx, d, e1.ID+1000)
	require.NoError(t, err)
	require.Empty(t, org)

	chains, err := l.Chains(ctx, d, "default")
	require.NoError(t, err)
	require.Equal(t, []ledger.ChainSize{{ChainKey: "web", Entries: 2}}, chains)
	chains, err = l.Chains(ctx, d, "acme")
	require.NoError(t, err)
	require.Empty(t, chains)

	var erased int64
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		erased, err = l.EraseMatching(ctx, tx, "web", []string{"note"}, map[string]string{"note": "n1"})
		return err
	}))
	require.EqualValues(t, 1, erased)

	all, err := l.VerifyAll(ctx, d, nil)
	require.NoError(t, err)
	require.Len(t, all["default"], 1)
	require.True(t, all["default"][0].OK, all["default"][0].Reason)
	require.EqualValues(t, 2, all["default"][0].Checked)
}
