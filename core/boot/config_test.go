package boot_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/sdk/errs"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestLoadDefaults(t *testing.T) {
	c, err := boot.Load(env(nil))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", c.Host)
	require.Equal(t, 8787, c.Port)
	require.Equal(t, "127.0.0.1:8787", c.Addr())
	require.Equal(t, boot.RoleBoard, c.Role)
	require.Equal(t, "http://127.0.0.1:8787", c.PublicURL)
	require.Equal(t, "http://127.0.0.1:8787/admin", c.AdminAudience)
	require.Equal(t, "http://127.0.0.1:8787", c.BoardURL)
	require.True(t, c.AdminAPI)
	require.True(t, c.AdminRequireMFA)
	require.False(t, c.SignupEnabled)
	require.Equal(t, 30, c.SignupMaxPerHour)
	require.Equal(t, 30*time.Minute, c.StaleAfter)
	require.Equal(t, 48*time.Hour, c.ExpiryWarn)
	require.Equal(t, 24*time.Hour, c.ExportTTL)
	require.Empty(t, c.ExportFormat)
	require.True(t, c.Embedded())
	require.True(t, filepath.IsAbs(c.DataDir))
	require.Equal(t, ".pact", filepath.Base(c.DataDir))
	require.Equal(t, "text", c.LogFormat)
	require.Equal(t, "info", c.LogLevel)
	require.Empty(t, c.PprofAddr, "profiling is off unless asked for")
}

func TestLoadReadsValues(t *testing.T) {
	c, err := boot.Load(env(map[string]string{
		"DATABASE_URL":             "postgres://x@y/z",
		"DATABASE_LISTEN_URL":      "postgres://x@direct/z",
		"PACT_DATA_DIR":            "/var/lib/pact",
		"HOST":                     "0.0.0.0",
		"PORT":                     "9000",
		"PACT_PUBLIC_URL":          "https://board.example.com/",
		"PACT_ADMIN_AUDIENCE":      "https://api.example.com/admin",
		"PACT_ADMIN_API":           "off",
		"PACT_ADMIN_REQUIRE_MFA":   "no",
		"PACT_EXPORT_FORMAT":       "Biscuit",
		"PACT_EXPORT_TTL_HOURS":    "0.001",
		"PACT_STALE_MINUTES":       "5",
		"PACT_EXPIRY_WARN_HOURS":   "12",
		"PACT_SIGNUP_ENABLED":      "yes",
		"PACT_SIGNUP_MAX_PER_HOUR": "-4",
		"PACT_LOG_FORMAT":          "json",
		"PACT_LOG_LEVEL":           "DEBUG",
		"PACT_PPROF_ADDR":          "127.0.0.1:6060",
	}))
	require.NoError(t, err)
	require.False(t, c.Embedded())
	require.Equal(t, "postgres://x@direct/z", c.DatabaseListenURL)
	require.Equal(t, "/var/lib/pact", c.DataDir)
	require.Equal(t, "0.0.0.0:9000", c.Addr())
	require.Equal(t, "https://board.example.com", c.PublicURL)
	require.Equal(t, "https://api.example.com", c.BoardURL, "derived from the audience minus /admin")
	require.False(t, c.AdminAPI)
	require.False(t, c.AdminRequireMFA)
	require.Equal(t, "biscuit", c.ExportFormat)
	require.Equal(t, time.Minute, c.ExportTTL, "the TTL cap is at least 60 s")
	require.Equal(t, 5*time.Minute, c.StaleAfter)
	require.Equal(t, 12*time.Hour, c.ExpiryWarn)
	require.True(t, c.SignupEnabled)
	require.Zero(t, c.SignupMaxPerHour)
	require.Equal(t, "json", c.LogFormat)
	require.Equal(t, "debug", c.LogLevel)
	require.Equal(t, "127.0.0.1:6060", c.PprofAddr)
}

func TestLoadAdminRoleHasItsOwnPort(t *testing.T) {
	c, err := boot.Load(env(map[string]string{"PACT_ROLE": "admin"}))
	require.NoError(t, err)
	require.Equal(t, boot.RoleAdmin, c.Role)
	require.Equal(t, 8788, c.Port)

	c, err = boot.Load(env(map[string]string{"PACT_ROLE": "admin", "PORT": "0"}))
	require.NoError(t, err)
	require.Zero(t, c.Port, "PORT=0 asks for a free port")
}

func TestLoadSignupBreakerNeverFails(t *testing.T) {
	c, err := boot.Load(env(map[string]string{"PACT_SIGNUP_MAX_PER_HOUR": "lots"}))
	require.NoError(t, err)
	require.Equal(t, 30, c.SignupMaxPerHour)
}

func TestLoadRefusesBadValues(t *testing.T) {
	for _, tt := range []struct{ name, value, want string }{
		{"PORT", "http", "integer from 0 to 65535"},
		{"PORT", "70000", "integer from 0 to 65535"},
		{"PORT", "-1", "integer from 0 to 65535"},
		{"PACT_EXPORT_FORMAT", "jwt", "tenuo, biscuit or unset"},
		{"PACT_EXPORT_TTL_HOURS", "soon", "positive number of hours"},
		{"PACT_EXPORT_TTL_HOURS", "NaN", "positive number of hours"},
		{"PACT_STALE_MINUTES", "0", "positive whole number"},
		{"PACT_EXPIRY_WARN_HOURS", "1.5", "positive whole number"},
		{"PACT_ADMIN_API", "maybe", "expected on or off"},
		{"PACT_SIGNUP_ENABLED", "sure", "expected on or off"},
		{"PACT_ROLE", "mcp", "expected board or admin"},
		{"PACT_PUBLIC_URL", "board.example.com", "http:// or https:// URL"},
		{"PACT_SLACK_WEBHOOK_URL", "hooks.slack.com/x", "http:// or https:// URL"},
		{"PACT_SMTP_URL", "mail.example.com:587", "expected smtp://"},
		{"PACT_SMTP_URL", "smtp://mail.example.com", "from= must be the sender's email address"},
		{"PACT_SMTP_URL", "smtp://mail.example.com?from=board@example.com&tls=yes", "tls= is starttls, tls or none"},
		{"PACT_SMTP_URL", "smtp://mail.example.com:99999?from=board@example.com", "the port is a number"},
		{"PACT_SMTP_URL", "smtps://mail.example.com?from=board@example.com&tls=none", "smtps:// is TLS from the start"},
		{"PACT_LOG_FORMAT", "xml", "text or json"},
		{"PACT_LOG_LEVEL", "loud", "trace, debug"},
		{"PACT_PPROF_ADDR", "6060", "expected host:port"},
		{"PACT_PPROF_ADDR", "localhost:pprof", "expected host:port"},
	} {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) { requireRefused(t, tt.name, tt.value, tt.want) })
	}
}

// requireRefused checks that Load refuses name=value as invalid_request,
// naming the variable and saying want.
func requireRefused(t *testing.T, name, value, want string) {
	t.Helper()
	_, err := boot.Load(env(map[string]string{name: value}))
	require.Error(t, err)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Contains(t, err.Error(), name+":")
	require.Contains(t, err.Error(), want)
}

func TestSMTPURL(t *testing.T) {
	for _, ok := range []string{"smtp://u:p@mail.example.com:587?from=board@example.com&tls=starttls",
		"smtps://mail.example.com?from=board@example.com", "smtp://127.0.0.1:2525?from=board@example.com&tls=none"} {
		c, err := boot.Load(env(map[string]string{"PACT_SMTP_URL": ok}))
		require.NoError(t, err, ok)
		require.Equal(t, ok, c.SMTPURL)
	}
	// A password in a malformed value is never repeated.
	_, err := boot.Load(env(map[string]string{"PACT_SMTP_URL": "smtp://u:hunter2@mail.example.com?from=x"}))
	require.ErrorContains(t, err, "PACT_SMTP_URL:")
	require.NotContains(t, err.Error(), "hunter2")
}

func TestLoadNamesEveryBadVariable(t *testing.T) {
	_, err := boot.Load(env(map[string]string{"PORT": "x", "PACT_ROLE": "y"}))
	require.ErrorContains(t, err, "PORT:")
	require.ErrorContains(t, err, "PACT_ROLE:")
}

func TestWebhookURLIsNotEchoed(t *testing.T) {
	_, err := boot.Load(env(map[string]string{"PACT_SLACK_WEBHOOK_URL": "secret-token-123"}))
	require.Error(t, err)
	require.NotContains(t, err.Error(), "secret-token-123")
}

// The help text and Load read the same table: every documented variable is
// read, and nothing undocumented is.
func TestVarsAreWhatLoadReads(t *testing.T) {
	var read []string
	_, err := boot.Load(func(k string) string { read = append(read, k); return "" })
	require.NoError(t, err)
	var documented []string
	for _, v := range boot.Vars() {
		require.NotEmpty(t, v.Doc, v.Name)
		documented = append(documented, v.Name)
	}
	require.Equal(t, documented, read)
	require.Len(t, slices.Compact(slices.Sorted(slices.Values(read))), len(read), "a variable is listed twice")

	var buf bytes.Buffer
	require.NoError(t, boot.WriteVars(&buf))
	for _, name := range documented {
		require.Contains(t, buf.String(), "  "+name+" ")
	}
	require.Equal(t, len(documented)+1, strings.Count(buf.String(), "\n"))
}
