package boot_test

import (
	"bufio"
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
)

// Each variable with a range takes both ends of the range Load checks, and
// gives the field the value in its unit.
func TestLoadAcceptsEachEndOfEachRange(t *testing.T) {
	const maxInt32 = math.MaxInt32
	for _, tt := range []struct {
		name, value string
		got         func(*boot.Config) any
		want        any
	}{
		{"PORT", "0", func(c *boot.Config) any { return c.Port }, 0},
		{"PORT", "65535", func(c *boot.Config) any { return c.Port }, 65535},
		{"PACT_DB_STATEMENTS", "prepared", func(c *boot.Config) any { return c.DBStatements }, "prepared"},
		{"PACT_DB_STATEMENTS", "unprepared", func(c *boot.Config) any { return c.DBStatements }, "unprepared"},
		{"PACT_DB_MAX_CONNS", "1", func(c *boot.Config) any { return c.DBMaxConns }, int32(1)},
		{"PACT_DB_MAX_CONNS", "2147483647", func(c *boot.Config) any { return c.DBMaxConns }, int32(maxInt32)},
		{"PACT_DB_ACQUIRE_TIMEOUT", "0", func(c *boot.Config) any { return c.DBAcquireTimeout }, time.Duration(0)},
		{"PACT_DB_ACQUIRE_TIMEOUT", "7", func(c *boot.Config) any { return c.DBAcquireTimeout }, 7 * time.Second},
		{"PACT_DB_ACQUIRE_TIMEOUT", "2147483647", func(c *boot.Config) any { return c.DBAcquireTimeout }, maxInt32 * time.Second},
		{"PACT_DB_STATEMENT_TIMEOUT", "0", func(c *boot.Config) any { return c.DBStatementTimeout }, time.Duration(0)},
		{"PACT_DB_STATEMENT_TIMEOUT", "45", func(c *boot.Config) any { return c.DBStatementTimeout }, 45 * time.Second},
		{"PACT_EXPORT_TTL_HOURS", "8784", func(c *boot.Config) any { return c.ExportTTL }, 24 * 366 * time.Hour},
		{"PACT_EXPORT_TTL_HOURS", "1.5", func(c *boot.Config) any { return c.ExportTTL }, 90 * time.Minute},
		{"PACT_SMTP_URL", "smtp://mail.example.com:1?from=board@example.com",
			func(c *boot.Config) any { return c.SMTPURL }, "smtp://mail.example.com:1?from=board@example.com"},
		{"PACT_SMTP_URL", "smtp://mail.example.com:65535?from=board@example.com",
			func(c *boot.Config) any { return c.SMTPURL }, "smtp://mail.example.com:65535?from=board@example.com"},
		{"PACT_STALE_MINUTES", "1", func(c *boot.Config) any { return c.StaleAfter }, time.Minute},
		{"PACT_STALE_MINUTES", "153722867", func(c *boot.Config) any { return c.StaleAfter }, 153722867 * time.Minute},
		{"PACT_EXPIRY_WARN_HOURS", "2562047", func(c *boot.Config) any { return c.ExpiryWarn }, 2562047 * time.Hour},
		{"PACT_OFFER_LEASE_SECONDS", "1", func(c *boot.Config) any { return c.OfferLease }, time.Second},
		{"PACT_EXPIRY_WARN_HOURS", "1", func(c *boot.Config) any { return c.ExpiryWarn }, time.Hour},
		{"PACT_PLUGIN_TIMEOUT_SECONDS", "1", func(c *boot.Config) any { return c.PluginTimeout }, time.Second},
		{"PACT_PLUGIN_TIMEOUT_SECONDS", "2147483647", func(c *boot.Config) any { return c.PluginTimeout }, maxInt32 * time.Second},
		{"PACT_DRAIN_SECONDS", "0", func(c *boot.Config) any { return c.DrainWait }, time.Duration(0)},
		{"PACT_DRAIN_SECONDS", "2147483647", func(c *boot.Config) any { return c.DrainWait }, maxInt32 * time.Second},
		{"PACT_SHUTDOWN_SECONDS", "1", func(c *boot.Config) any { return c.ShutdownDeadline }, time.Second},
		{"PACT_LOG_CHECKPOINT_SECONDS", "0", func(c *boot.Config) any { return c.CheckpointEvery }, time.Duration(0)},
		{"PACT_LOG_CHECKPOINT_ENTRIES", "1", func(c *boot.Config) any { return c.CheckpointEntries }, int64(1)},
		{"PACT_LOG_CHECKPOINT_ENTRIES", "2147483647", func(c *boot.Config) any { return c.CheckpointEntries }, int64(maxInt32)},
		{"PACT_LOG_WITNESSES", "https://w1.example/c, http://w2.example:8080/c ,,",
			func(c *boot.Config) any { return c.Witnesses }, []string{"https://w1.example/c", "http://w2.example:8080/c"}},
		{"PACT_PPROF_ADDR", "127.0.0.1:0", func(c *boot.Config) any { return c.PprofAddr }, "127.0.0.1:0"},
		{"PACT_PPROF_ADDR", "127.0.0.1:65535", func(c *boot.Config) any { return c.PprofAddr }, "127.0.0.1:65535"},
		{"PACT_METRICS_ADDR", ":0", func(c *boot.Config) any { return c.MetricsAddr }, ":0"},
		{"PACT_METRICS_ADDR", "[::1]:65535", func(c *boot.Config) any { return c.MetricsAddr }, "[::1]:65535"},
	} {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			c, err := boot.Load(env(map[string]string{tt.name: tt.value}))
			require.NoError(t, err)
			require.Equal(t, tt.want, tt.got(c))
		})
	}
}

// Just past each end of each range, and each malformed value, Load refuses
// with the variable's name and what it expects.
func TestLoadRefusesJustPastEachEndOfEachRange(t *testing.T) {
	for _, tt := range []struct{ name, value, want string }{
		{"PORT", "65536", "integer from 0 to 65535"},
		{"PACT_DB_STATEMENTS", "sometimes", `use "prepared" (the default) or "unprepared"`},
		{"PACT_DB_MAX_CONNS", "0", "positive whole number"},
		{"PACT_DB_MAX_CONNS", "2147483648", "positive whole number of at most 2147483647"},
		{"PACT_DB_ACQUIRE_TIMEOUT", "-1", "whole number from 0 to 2147483647"},
		{"PACT_DB_ACQUIRE_TIMEOUT", "2147483648", "whole number from 0 to 2147483647"},
		{"PACT_DB_STATEMENT_TIMEOUT", "-1", "whole number from 0 to 2147483647"},
		{"PACT_EXPORT_TTL_HOURS", "0", "positive number of hours"},
		{"PACT_EXPORT_TTL_HOURS", "-1", "positive number of hours"},
		{"PACT_EXPORT_TTL_HOURS", "8784.5", "positive number of hours"},
		{"PACT_EXPORT_TTL_HOURS", "+Inf", "positive number of hours"},
		{"PACT_SMTP_URL", "smtp://mail.example.com:0?from=board@example.com", "the port is a number from 1 to 65535"},
		{"PACT_SMTP_URL", "smtp://mail.example.com:65536?from=board@example.com", "the port is a number from 1 to 65535"},
		{"PACT_OFFER_LEASE_SECONDS", "0", "positive whole number"},
		// 2^31 minutes or hours would overflow a time.Duration into a
		// negative lease or warning time: the bound is what it holds.
		{"PACT_STALE_MINUTES", "153722868", "positive whole number of at most 153722867"},
		{"PACT_STALE_MINUTES", "2147483647", "positive whole number of at most 153722867"},
		{"PACT_EXPIRY_WARN_HOURS", "2562048", "positive whole number of at most 2562047"},
		{"PACT_PLUGIN_TIMEOUT_SECONDS", "2147483648", "positive whole number"},
		{"PACT_DRAIN_SECONDS", "-1", "whole number from 0 to 2147483647"},
		{"PACT_DRAIN_SECONDS", "2147483648", "whole number from 0 to 2147483647"},
		{"PACT_SHUTDOWN_SECONDS", "0", "positive whole number"},
		{"PACT_LOG_CHECKPOINT_SECONDS", "-1", "whole number from 0 to 2147483647"},
		{"PACT_LOG_CHECKPOINT_ENTRIES", "0", "positive whole number"},
		{"PACT_LOG_CHECKPOINT_ENTRIES", "2147483648", "positive whole number"},
		{"PACT_LOG_WITNESSES", "https://w1.example/c,ftp://w2.example/c", `"ftp://w2.example/c" is not an http(s) URL`},
		{"PACT_LOG_WITNESSES", "https://", `"https://" is not an http(s) URL`},
		{"PACT_LOG_WITNESSES", "w1.example/c", `"w1.example/c" is not an http(s) URL`},
		{"PACT_LOG_WITNESSES", "http://[::1", `"http://[::1" is not an http(s) URL`},
		{"PACT_PPROF_ADDR", "127.0.0.1:65536", "expected host:port"},
		{"PACT_PPROF_ADDR", "127.0.0.1:-1", "expected host:port"},
		{"PACT_METRICS_ADDR", "127.0.0.1:65536", "expected host:port"},
		{"PACT_METRICS_ADDR", "127.0.0.1", "expected host:port"},
	} {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) { requireRefused(t, tt.name, tt.value, tt.want) })
	}
}

// --help shows each variable's default, and a dash for those that have
// none.
func TestHelpShowsEachDefaultOrADash(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, boot.WriteVars(&buf))
	rows := map[string]string{}
	lines := bufio.NewScanner(&buf)
	for lines.Scan() {
		name, rest, _ := strings.Cut(strings.TrimPrefix(lines.Text(), "  "), " ")
		rows[name] = strings.TrimLeft(rest, " ")
	}
	dashes := 0
	for _, v := range boot.Vars() {
		want := v.Default
		if want == "" {
			want = "-"
			dashes++
		}
		require.True(t, strings.HasPrefix(rows[v.Name], want+"  "), "%s: %q", v.Name, rows[v.Name])
	}
	require.NotZero(t, dashes)
	require.True(t, strings.HasPrefix(rows["HOST"], "127.0.0.1  "), "a literal default is shown as it is")
}
