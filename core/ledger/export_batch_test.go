package ledger

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/pgtest"
)

// A chain longer than a batch (10,000 rows a query) is exported whole, in
// order: the next query goes on after the last id read. Progress is told
// of each page and of the rest. The entries are appended by ledger_append
// itself, 10,001 times in one statement: a valid chain, quickly.
func TestAnExportReadsAChainLongerThanABatch(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	_, err := d.ExecContext(ctx, `INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('web', 'default', 'Web', 'ana')`)
	require.NoError(t, err)
	l := New(nil)
	const n = batch + 1
	_, args, _, err := l.appendArgs(Entry{ProjectID: "web", Actor: "system", Action: "x", Payload: map[string]any{"same": true}})
	require.NoError(t, err)
	args[8] = string(args[8].([]byte)) // the payload, as jsonb's text
	// A statement per thousand: the chain head's row versions of one
	// transaction slow each next update down.
	for left := n; left > 0; left -= page {
		_, err = d.Pool.Exec(ctx, `SELECT ledger_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
			FROM generate_series(1, $15)`, append(args, min(left, page))...)
		require.NoError(t, err)
	}

	var b bytes.Buffer
	var told []int
	out, err := l.Export(ctx, d, Scope{OrgID: "default", ProjectID: "web"}, nil, logformat.NewWriter(&b),
		func(k int) { told = append(told, k) })
	require.NoError(t, err)
	require.Equal(t, Exported{Chains: 1, Entries: n}, out)
	want := []int{}
	for range n / page {
		want = append(want, page)
	}
	require.Equal(t, append(want, 1), told)
	r, err := logformat.Verify(bytes.NewReader(b.Bytes()), logformat.Options{})
	require.NoError(t, err)
	require.True(t, r.OK, "%+v", r.Problems)
	require.EqualValues(t, n, r.Entries)
}
