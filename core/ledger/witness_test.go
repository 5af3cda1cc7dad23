package ledger_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
)

// slowWitness acknowledges every checkpoint after taking its time, on the
// bubble's fake clock: no real wait.
type slowWitness struct {
	took time.Duration
	got  []string
}

func (s *slowWitness) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	time.Sleep(s.took)
	s.got = append(s.got, string(body))
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Body: io.NopCloser(strings.NewReader("")),
		Header: http.Header{}, Request: r}, nil
}

// A round stops sending a witness once the lease has less than two send
// timeouts left (witnessLease 2m, witnessSendTimeout 10s: 100s in), and
// the next round goes on from the first checkpoint not sent. The witness
// takes 9s a checkpoint on synctest's fake clock, so the round starts its
// sends at 0s, 9s, ..., 99s: twelve, and the thirteenth (at 108s) waits.
func TestADeliveryStopsTwoSendTimeoutsBeforeTheLeaseEnds(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	const checkpoints = 20
	_, err := d.Pool.Exec(ctx, `INSERT INTO log_checkpoints (chain_key, size, head_hash, taken_at, note)
		SELECT 'web', n, repeat('a', 64), now(), 'note ' || n FROM generate_series(1, $1) n`, checkpoints)
	require.NoError(t, err)
	w := &slowWitness{took: 9 * time.Second}
	wit := &ledger.Witnesses{URLs: []string{"http://witness.test/"}, Client: &http.Client{Transport: w}}
	require.NoError(t, wit.Register(ctx, d))

	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		n, err := wit.Deliver(ctx, d)
		require.NoError(t, err)
		require.Equal(t, 12, n)
		require.Equal(t, 12*9*time.Second, time.Since(start))
	})
	var want []string
	for i := 1; i <= 12; i++ {
		want = append(want, fmt.Sprintf("note %d", i))
	}
	require.Equal(t, want, w.got)
	var through, first int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT w.delivered_through, (SELECT min(id) FROM log_checkpoints)
		FROM log_witnesses w`).Scan(&through, &first))
	require.Equal(t, first+11, through, "the cursor is at the last one acknowledged")

	w.took = 0 // the next round sends the rest
	n, err := wit.Deliver(ctx, d)
	require.NoError(t, err)
	require.Equal(t, checkpoints-12, n)
	require.Len(t, w.got, checkpoints)
	require.Equal(t, "note 13", w.got[12])
}
