package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/pgtest"
)

// refusingWriter refuses every write.
type refusingWriter struct{ err error }

func (w refusingWriter) Write([]byte) (int, error) { return 0, w.err }

// A destination that refuses a record fails the export with its error,
// whichever record it is: the key, a checkpoint, an entry, the trailer or
// the last flush. logformat.Writer buffers 64 KiB (a line longer than
// that goes straight through), so a key padded to fill the buffer up to a
// record makes that record the first to reach the destination.
func TestAnExportFailsWithTheErrorOfTheRecordItsDestinationRefuses(t *testing.T) {
	const buffer = 1 << 16
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(&ledger.Options{Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }})
	cp, _ := checkpointer(t, 1, time.Hour)
	appendMany(t, d, l, "web", 2)
	_, err := cp.Take(ctx, d, time.Now())
	require.NoError(t, err)
	scope := ledger.Scope{OrgID: "default", ProjectID: "web"}

	// ends[i] is where line i ends in a bundle whose key is "k".
	var b bytes.Buffer
	out, err := l.Export(ctx, d, scope, []string{"k"}, logformat.NewWriter(&b), nil)
	require.NoError(t, err)
	require.Equal(t, ledger.Exported{Chains: 1, Entries: 2, Checkpoints: 1}, out)
	var ends []int
	for i, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			ends = append(ends, len(line))
			if i > 0 {
				ends[i] += ends[i-1]
			}
		}
	}
	require.Len(t, ends, 6, "header, key, checkpoint, two entries, end")
	for _, tc := range []struct {
		name    string
		padding int // added to the key
		inChain bool
	}{
		{name: "key", padding: buffer},
		{name: "checkpoint", padding: buffer - ends[1]},
		{name: "entry", padding: buffer - ends[2], inChain: true},
		{name: "second entry", padding: buffer - ends[3], inChain: true},
		{name: "end", padding: buffer - ends[4]},
		{name: "flush", padding: buffer - ends[5]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused := errors.New("disk full")
			key := "k" + strings.Repeat("k", tc.padding)
			_, err := l.Export(ctx, d, scope, []string{key}, logformat.NewWriter(refusingWriter{refused}), nil)
			require.ErrorIs(t, err, refused)
			require.ErrorContains(t, err, "ledger: export project:web: ")
			if tc.inChain {
				require.ErrorContains(t, err, "chain web: ")
			} else {
				require.NotContains(t, err.Error(), "chain web")
			}
		})
	}
}

// A canceled context fails the export: before it starts, nothing is
// written; between chains, the next chain's read fails and names it.
func TestAnExportStopsWhenItsContextIsCanceled(t *testing.T) {
	d := pgtest.New(t)
	seed(t, d)
	_, err := d.ExecContext(context.Background(), `INSERT INTO projects (id, org_id, name, created_by) VALUES ('few', 'default', 'Few', 'ana')`)
	require.NoError(t, err)
	l := ledger.New(nil)
	appendMany(t, d, l, "few", 3)
	appendMany(t, d, l, "web", 2)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b bytes.Buffer
	_, err = l.Export(ctx, d, ledger.Scope{OrgID: "default"}, nil, logformat.NewWriter(&b), nil)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, b.Len())

	// Chains go in order of their keys: few's rest is told, then web is read.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var told []int
	_, err = l.Export(ctx, d, ledger.Scope{OrgID: "default"}, nil, logformat.NewWriter(&b),
		func(n int) { told = append(told, n); cancel() })
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "ledger: export org:default: chain web: ")
	require.Equal(t, []int{3}, told)
	require.Zero(t, b.Len(), "a failed export flushes nothing")
}
