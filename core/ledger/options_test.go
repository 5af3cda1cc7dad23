package ledger

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/metrics"
)

// Options.Statements chooses how the log sends its statements
// (PACT_DB_STATEMENTS); a name it does not know keeps the default.
func TestNewTakesTheStatementMode(t *testing.T) {
	require.Equal(t, pgx.QueryExecModeCacheDescribe, New(&Options{Statements: "unprepared"}).mode)
	require.Equal(t, pgx.QueryExecModeCacheStatement, New(&Options{Statements: "prepared"}).mode)
	require.Equal(t, pgx.QueryExecModeCacheStatement, New(&Options{Statements: "bogus"}).mode)
	require.Equal(t, pgx.QueryExecModeCacheStatement, New(nil).mode)
}

// pact_log_appends_total counts an entry with outcome "" or ok as ok, any
// other outcome as refused.
func TestAppendsAreCountedByOutcome(t *testing.T) {
	m := metrics.New()
	l := New(&Options{Metrics: m})
	for _, e := range []Entry{{}, {Outcome: OK}, {Outcome: OK}, {Outcome: "not_found"}, {Outcome: "forbidden"}, {Outcome: "x"}, {Outcome: "y"}} {
		l.appended(e)
	}
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "pact_log_appends_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			got[s.GetLabel()[0].GetValue()] = s.GetCounter().GetValue()
		}
	}
	require.Equal(t, map[string]float64{"ok": 3, "refused": 4}, got)
}
