package ledger_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
)

// Verification reads every hashed column in PostgreSQL's binary format and
// re-encodes payloads from jsonb's text: entries with every field filled,
// escapes and unicode in them, verify; and a change to any one field of
// entry 3 breaks the chain there, and nowhere before.
func TestVerifyChecksEveryHashedField(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	// Tasks need mandates and agents of their own; the log only needs ids.
	_, err := d.ExecContext(ctx, `ALTER TABLE entries DROP CONSTRAINT entries_task_id_fkey`)
	require.NoError(t, err)
	l := ledger.New(nil)
	odd := "Zoë \"quoted\" \\ \n\t\u0001\u001f ✓ 😀 \u2028"
	payloads := []any{
		map[string]any{"text": odd, "cost": 0.00001, "big": 1e20, "n": int64(1234567890123456789),
			"nested": map[string]any{"b": []any{1, 2.5, nil, true, "x"}, "a": map[string]any{}, "é": "", "e": -0.5}},
		nil, "just a string", []any{}, 42,
	}
	var ids []int64
	for i := range 6 {
		e := ledger.Entry{ProjectID: "web", Actor: "human:" + odd, Action: "x " + odd, Payload: payloads[i%len(payloads)]}
		if i%2 == 0 || i == 3 {
			e.AgentID, e.TaskID = "code-web", uuid.NewString()
		}
		for range i % 4 {
			e.MandateChain = append(e.MandateChain, uuid.New())
		}
		if i == 3 {
			e.Outcome = "forbidden"
		}
		ids = append(ids, appendOne(t, d, l, e).ID)
	}
	var erased bool
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		erased, err = l.ErasePayload(ctx, tx, ids[1])
		return
	}))
	require.True(t, erased)
	verify := func() ledger.Verdict {
		t.Helper()
		v, err := l.VerifyChain(ctx, d, "web", nil)
		require.NoError(t, err)
		return v
	}
	v := verify()
	require.True(t, v.OK, v.Reason)
	require.EqualValues(t, 6, v.Checked)

	_, err = d.ExecContext(ctx, `ALTER TABLE entries DISABLE TRIGGER USER; ALTER TABLE payloads DISABLE TRIGGER USER;
		CREATE TABLE saved_entries AS SELECT * FROM entries; CREATE TABLE saved_payloads AS SELECT * FROM payloads`)
	require.NoError(t, err)
	const contents, payload = "entry contents do not match its hash", "payload does not match payload_hash"
	for _, tc := range []struct{ set, reason string }{
		{`UPDATE entries SET task_id = gen_random_uuid() WHERE id = %d`, contents},
		{`UPDATE entries SET task_id = NULL WHERE id = %d`, contents},
		{`UPDATE entries SET agent_id = NULL WHERE id = %d`, contents},
		{`UPDATE entries SET project_id = NULL WHERE id = %d`, contents},
		{`UPDATE entries SET actor = 'system' WHERE id = %d`, contents},
		{`UPDATE entries SET action = action || ' ' WHERE id = %d`, contents},
		{`UPDATE entries SET outcome = 'ok' WHERE id = %d`, contents},
		{`UPDATE entries SET payload_hash = md5(payload_hash) WHERE id = %d`, contents},
		{`UPDATE entries SET at = at + interval '1 microsecond' WHERE id = %d`, contents},
		{`UPDATE entries SET at = 'infinity' WHERE id = %d`, contents},
		{`UPDATE entries SET mandate_chain = mandate_chain[3:3] || mandate_chain[1:2] WHERE id = %d`, contents},
		{`UPDATE entries SET mandate_chain = mandate_chain[1:2] WHERE id = %d`, contents},
		{`UPDATE entries SET mandate_chain = mandate_chain[1:2] || NULL::uuid WHERE id = %d`, contents},
		{`UPDATE entries SET mandate_chain = ARRAY[mandate_chain[1:1], mandate_chain[2:2]] WHERE id = %d`, contents},
		{`UPDATE payloads SET content = NULL WHERE id = (SELECT payload_ref FROM entries WHERE id = %d)`, payload},
		{`UPDATE payloads SET content = '[1]' WHERE id = (SELECT payload_ref FROM entries WHERE id = %d)`, payload},
	} {
		_, err := d.ExecContext(ctx, fmt.Sprintf(tc.set, ids[3]))
		require.NoError(t, err, tc.set)
		v := verify()
		require.False(t, v.OK, tc.set)
		require.Equal(t, tc.reason, v.Reason, tc.set)
		require.NotNil(t, v.BrokenAt, tc.set)
		require.Equal(t, ids[3], *v.BrokenAt, tc.set)
		require.EqualValues(t, 3, v.Checked, tc.set)
		_, err = d.ExecContext(ctx, `UPDATE entries e SET (project_id, task_id, agent_id, actor, mandate_chain, action, payload_hash, outcome, at) =
				(s.project_id, s.task_id, s.agent_id, s.actor, s.mandate_chain, s.action, s.payload_hash, s.outcome, s.at)
				FROM saved_entries s WHERE s.id = e.id;
			UPDATE payloads p SET content = s.content FROM saved_payloads s WHERE s.id = p.id`)
		require.NoError(t, err)
		require.True(t, verify().OK, "restored after %s", tc.set)
	}
}
