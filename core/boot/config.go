// Package boot is what pact-board and pact-admin share at start-up: the
// configuration read from the environment, the database (an external one or
// the embedded default cluster, migrated) and the signing key.
//
// Nothing here keeps state between calls: each binary calls Load once, passes
// the *Config down, and owns what OpenDatabase returns.
package boot

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/pactboard/pact/sdk/errs"
)

// Role is which service a pact-board process is.
type Role string

const (
	// RoleBoard serves everything: MCP, hooks, well-known documents and,
	// unless PACT_ADMIN_API is off, the Admin API.
	RoleBoard Role = "board"
	// RoleAdmin serves only /healthz, /readyz and /admin/api/*, so the kill
	// switch keeps working when the MCP side is down.
	RoleAdmin Role = "admin"
)

// Config is the process configuration, read once from the environment by
// [Load]. Its fields are never written after Load returns.
type Config struct {
	// DatabaseURL is an external PostgreSQL; "" means the embedded default
	// cluster under DataDir/pg.
	DatabaseURL string
	// DatabaseListenURL is where the LISTEN connections go; "" means
	// DatabaseURL (docs/operations.md, "PostgreSQL behind a pooler").
	DatabaseListenURL string
	// DataDir holds the embedded cluster and the generated signing key.
	DataDir string
	// DBStatements is PACT_DB_STATEMENTS: db.Prepared or db.Unprepared.
	DBStatements string
	// DBMaxConns is PACT_DB_MAX_CONNS; 0 leaves the pool's size to
	// DATABASE_URL or pgxpool.
	DBMaxConns int32
	// DBAcquireTimeout is PACT_DB_ACQUIRE_TIMEOUT; 0 waits as long as the call.
	DBAcquireTimeout time.Duration
	// DBStatementTimeout is PACT_DB_STATEMENT_TIMEOUT; 0 keeps the server's.
	DBStatementTimeout time.Duration

	// SigningKey is PACT_SIGNING_KEY as given; use [SigningKey] to get the
	// key the board runs with.
	SigningKey string
	// BoardKeys is PACT_BOARD_KEYS: "kid=<seed>" entries, newest first.
	BoardKeys string

	Host string
	// Port is the TCP port; 0 asks the kernel for a free one.
	Port int
	Role Role

	// PublicURL is how agents reach the board, without a trailing slash.
	PublicURL string
	// BoardURL is the board URL used in connector URLs and setup commands.
	BoardURL   string
	AuthIssuer string

	AdminAPI        bool
	AdminRequireMFA bool
	AdminAudience   string
	AdminUIURL      string

	SlackWebhookURL string
	// SMTPURL is PACT_SMTP_URL, checked: email goes out through the bundled
	// notifier-email plugin when it is set (docs/notifications.md, "Email").
	SMTPURL string

	// ExportFormat is "", "tenuo" or "biscuit".
	ExportFormat string
	// ExportTTL caps the lifetime of exported leaf credentials (at least 60 s).
	ExportTTL time.Duration

	// StaleAfter is the claim lease.
	StaleAfter time.Duration
	// ExpiryWarn is how long before expiry people are warned.
	ExpiryWarn time.Duration

	SignupEnabled    bool
	SignupMaxPerHour int

	// ConsoleLocalSignin is PACT_CONSOLE_LOCAL_SIGNIN: pact-board prints a
	// one-time console link for the first owner at start. Unset, it is on
	// only with the embedded database.
	ConsoleLocalSignin bool
	// ConsoleClientID and ConsoleClientSecret are the console's OAuth client
	// at PACT_AUTH_ISSUER; without an id the console has no OIDC sign-in.
	ConsoleClientID     string
	ConsoleClientSecret string

	// PluginDir is where plugin binaries named by a relative path live.
	PluginDir string
	// Plugins is PACT_PLUGINS as given: a JSON catalog of the plugins to
	// run, inline or the path of a file; core/pluginhost reads it.
	Plugins string
	// PluginTimeout is the deadline of every plugin call.
	PluginTimeout time.Duration

	// DrainWait is how long a stopping board answers /readyz with 503,
	// its held calls already answered, before it stops taking connections:
	// long enough for load balancers to see it leave (PACT_DRAIN_SECONDS).
	DrainWait time.Duration
	// ShutdownDeadline is how long calls in flight then get to finish
	// before their connections are closed (PACT_SHUTDOWN_SECONDS).
	ShutdownDeadline time.Duration

	// OfferLease is how long a task offered to one holder of pact_events
	// waits for its claim (PACT_OFFER_LEASE_SECONDS).
	OfferLease time.Duration
	// A2AAllowPrivate lets the board reach remote A2A agents on loopback
	// and private addresses (PACT_A2A_ALLOW_PRIVATE).
	A2AAllowPrivate bool

	// CheckpointEvery is at most how long a chain that grew waits for its
	// next signed checkpoint; 0 signs none (PACT_LOG_CHECKPOINT_SECONDS).
	CheckpointEvery time.Duration
	// CheckpointEntries is how much growth takes a checkpoint at once
	// (PACT_LOG_CHECKPOINT_ENTRIES).
	CheckpointEntries int64
	// Witnesses receive every checkpoint (PACT_LOG_WITNESSES).
	Witnesses []string

	// PprofAddr is where net/http/pprof is served, on a listener of its
	// own; "" serves it nowhere.
	PprofAddr string
	// MetricsAddr is where /metrics (Prometheus) is served, on a listener
	// of its own; "" serves none.
	MetricsAddr string

	// LogFormat is "text" or "json"; LogLevel an hclog level name.
	LogFormat string
	LogLevel  string
}

// Addr is HOST:PORT, ready for net.Listen.
func (c *Config) Addr() string {
	return joinHostPort(c.Host, c.Port)
}

// Embedded reports whether the board runs on the embedded default cluster.
func (c *Config) Embedded() bool { return c.DatabaseURL == "" }

// Load reads the configuration through getenv (os.Getenv in the binaries, a
// map in tests). Every variable it reads is listed by [Vars], which is what
// --help prints. An unset or empty variable takes its default.
//
// Bad values return one InvalidRequest error that names each offending
// variable and what it expects.
func Load(getenv func(string) string) (*Config, error) {
	c := &Config{}
	var problems []string
	for _, v := range vars() {
		raw := strings.TrimSpace(getenv(v.Name))
		if raw == "" {
			raw = v.def
		}
		if err := v.set(c, raw); err != nil {
			problems = append(problems, v.Name+": "+err.Error())
		}
	}
	if len(problems) > 0 {
		return nil, errs.E(errs.InvalidRequest, "bad configuration: %s", strings.Join(problems, "; "))
	}
	c.derive()
	return c, nil
}

// derive fills the defaults that depend on other variables.
func (c *Config) derive() {
	if c.Port < 0 { // PORT unset: the admin service has its own default
		c.Port = 8787
		if c.Role == RoleAdmin {
			c.Port = 8788
		}
	}
	if c.AdminAudience == "" {
		c.AdminAudience = c.PublicURL + "/admin"
	}
	if c.BoardURL == "" {
		if base, ok := strings.CutSuffix(c.AdminAudience, "/admin"); ok && base != "" {
			c.BoardURL = base
		} else {
			c.BoardURL = c.PublicURL
		}
	}
	if c.DataDir != "" && !filepath.IsAbs(c.DataDir) {
		if abs, err := filepath.Abs(c.DataDir); err == nil {
			c.DataDir = abs
		}
	}
}
