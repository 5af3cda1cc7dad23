package mandate_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// issueWith issues a root to a1 with svc, expiring an hour after the real
// now (a service without Options.Now reads the real clock).
func (w *world) issueWith(svc *mandate.Service) (*mandate.Mandate, error) {
	var m *mandate.Mandate
	err := w.tx(func(tx bun.IDB) (err error) {
		m, err = svc.IssueRoot(w.ctx, tx, mandate.RootInput{
			Issuer: "boss", Holder: "a1", Scope: web, ExpiresAt: time.Now().Add(time.Hour),
		})
		return err
	})
	return m, err
}

// preparedChainReads verifies m with svc and counts, on the connection of
// that transaction, the server-side prepared statements of the chain read:
// one when the service prepares its statement, none when it does not.
func (w *world) preparedChainReads(svc *mandate.Service, m *mandate.Mandate) int {
	w.tb.Helper()
	var n int
	require.NoError(w.tb, w.tx(func(tx bun.IDB) error {
		_, err := svc.Verify(w.ctx, tx, m.ID.String(), m.Holder)
		require.NoError(w.tb, err)
		return tx.NewRaw(`SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'WITH RECURSIVE chain AS%'`).Scan(w.ctx, &n)
	}))
	return n
}

// With nil options the service reads the real clock, draws ids from
// crypto/rand and prepares the chain read.
func TestNewServiceWithNilOptionsUsesTheProductionSettings(t *testing.T) {
	w := newWorld(t)
	svc := mandate.NewService(w.keys, nil)
	a, err := svc.IssueRoot(w.ctx, w.d, mandate.RootInput{Issuer: "boss", Holder: "a1", Scope: web, ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	b, err := w.issueWith(svc)
	require.NoError(t, err)
	require.NotEqual(t, a.ID, b.ID)
	require.Equal(t, uuid.Version(4), a.ID.Version())
	require.Equal(t, 1, w.preparedChainReads(svc, a))

	// The world's roots expire a month after t0, which the real clock has
	// passed.
	old := w.root("a2", web, nil, 0)
	_, err = w.verify(old.ID.String(), "a2")
	require.NoError(t, err, "the world's clock is t0")
	err = w.tx(func(tx bun.IDB) error { _, err := svc.Verify(w.ctx, tx, old.ID.String(), "a2"); return err })
	requireRefusal(t, err, errs.MandateExpired, old.ID.String())
}

func TestStatementsOptionChoosesWhetherTheChainReadIsPrepared(t *testing.T) {
	for statements, want := range map[string]int{
		"":              1,
		"prepared":      1,
		"unprepared":    0,
		" Unprepared ":  0,
		"not-a-setting": 1, // an unknown mode keeps the default
	} {
		t.Run(strings.TrimSpace(statements), func(t *testing.T) {
			// A fresh database per mode: a connection keeps what another
			// service prepared on it.
			w := newWorld(t)
			m := w.root("a1", web, nil, 0)
			svc := mandate.NewService(w.keys, &mandate.Options{Now: func() time.Time { return t0 }, Statements: statements})
			require.Equal(t, want, w.preparedChainReads(svc, m))
		})
	}
}

// Ids come from Options.Rand: 16 bytes each, as a version 4 UUID; a reader
// that runs dry fails the issue.
func TestRandOptionIsWhereMandateIDsComeFrom(t *testing.T) {
	w := newWorld(t)
	seed := bytes.Repeat([]byte{0x5a}, 16)
	seed = append(seed, bytes.Repeat([]byte{0xa5}, 16)...)
	seed = append(seed, 1, 2, 3) // too few for a third
	svc := mandate.NewService(w.keys, &mandate.Options{Rand: bytes.NewReader(seed)})

	first, err := uuid.NewRandomFromReader(bytes.NewReader(seed[:16]))
	require.NoError(t, err)
	second, err := uuid.NewRandomFromReader(bytes.NewReader(seed[16:32]))
	require.NoError(t, err)

	a, err := w.issueWith(svc)
	require.NoError(t, err)
	require.Equal(t, first, a.ID)
	b, err := w.issueWith(svc)
	require.NoError(t, err)
	require.Equal(t, second, b.ID)

	_, err = w.issueWith(svc)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, errs.Internal, errs.CodeOf(err))
	require.Equal(t, "new mandate id", err.(*errs.Error).Message)
}
