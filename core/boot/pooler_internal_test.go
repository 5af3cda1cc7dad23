package boot

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
)

// What a pooler between the board and PostgreSQL may break is logged with
// the setting that avoids it (docs/operations.md, "PostgreSQL behind a
// pooler"): prepared statements only through a pooled connection and only
// when PACT_DB_STATEMENTS is prepared (its default, also when a Config
// leaves it empty), LISTEN only through a pooled listen connection, jit
// whenever the sessions do not have it off. A direct connection warns of
// nothing. (The same warnings behind a real PgBouncer: cmd/pact-board's
// pooler tests, with PACT_PGBOUNCER.)
func TestPoolerWarningsNameWhatTheSessionBreaks(t *testing.T) {
	const prepared, listen, jit = "PACT_DB_STATEMENTS is prepared", "set DATABASE_LISTEN_URL", "jit is on"
	for _, tt := range []struct {
		name       string
		session    db.Session
		statements string
		want       []string
	}{
		{"direct", db.Session{JIT: "off"}, "prepared", nil},
		{"pooled, prepared", db.Session{Pooled: true, JIT: "off"}, "prepared", []string{prepared}},
		{"pooled, statements left empty", db.Session{Pooled: true, JIT: "off"}, "", []string{prepared}},
		{"pooled, Prepared in capitals", db.Session{Pooled: true, JIT: "off"}, "Prepared", []string{prepared}},
		{"pooled, unprepared", db.Session{Pooled: true, JIT: "off"}, "unprepared", nil},
		{"pooled, UNPREPARED in capitals", db.Session{Pooled: true, JIT: "off"}, "UNPREPARED", nil},
		{"direct, listen pooled", db.Session{ListenPooled: true, JIT: "off"}, "prepared", []string{listen}},
		{"all pooled, jit on", db.Session{Pooled: true, ListenPooled: true, JIT: "on"}, "prepared", []string{prepared, listen, jit}},
		{"direct, jit on", db.Session{JIT: "on"}, "unprepared", []string{jit}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			warnSession(tt.session, &Config{DBStatements: tt.statements}, hclog.New(&hclog.LoggerOptions{Output: &out}))
			require.Equal(t, len(tt.want), strings.Count(out.String(), "[WARN]"), out.String())
			for _, w := range tt.want {
				require.Contains(t, out.String(), w)
			}
		})
	}
}
