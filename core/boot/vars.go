package boot

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pactboard/pact/core/db"
)

// VarDoc documents one environment variable: --help prints these, and the
// table of docs/configuration.md is written from the same list.
type VarDoc struct {
	Name string
	// Default is what an unset variable means, in words when it is derived.
	Default string
	Doc     string
}

// variable is a VarDoc plus how Load reads it. def is the raw value an unset
// variable takes; set parses raw (never empty unless def is) into c.
type variable struct {
	VarDoc
	def string
	set func(c *Config, raw string) error
}

// Vars lists every environment variable the board reads, in the order --help
// shows them.
func Vars() []VarDoc {
	all := vars()
	out := make([]VarDoc, len(all))
	for i, v := range all {
		out[i] = v.VarDoc
	}
	return out
}

// WriteVars prints the variables as an aligned table, for --help.
func WriteVars(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  VARIABLE\tDEFAULT\tMEANING")
	for _, v := range Vars() {
		def := v.Default
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", v.Name, def, v.Doc)
	}
	return tw.Flush()
}

func doc(name, def, text string) VarDoc { return VarDoc{Name: name, Default: def, Doc: text} }

// vars is the table Load runs. Order matters only for documentation.
func vars() []variable {
	return []variable{
		{doc("DATABASE_URL", "embedded", "PostgreSQL connection string; unset runs an embedded cluster under PACT_DATA_DIR/pg"),
			"", func(c *Config, s string) error { c.DatabaseURL = s; return nil }},
		{doc("DATABASE_LISTEN_URL", "DATABASE_URL", "PostgreSQL connection string of the event listeners' own connections (LISTEN); "+
			"set it to PostgreSQL itself, or to PgBouncer in session mode, when DATABASE_URL goes through a pooler in transaction mode"),
			"", func(c *Config, s string) error { c.DatabaseListenURL = s; return nil }},
		{doc("PACT_DATA_DIR", ".pact", "directory for the embedded cluster and the generated signing key"),
			".pact", func(c *Config, s string) error { c.DataDir = s; return nil }},
		{doc("PG_BIN", "searched", "directory holding initdb, pg_ctl and postgres (else PATH, else /usr/lib/postgresql/*/bin)"),
			"", func(*Config, string) error { return nil }}, // read by core/pgcluster
		{doc("PACT_DB_STATEMENTS", "prepared", "how the hot path sends its statements: prepared (parsed and planned once per connection; "+
			"needs a direct connection, PgBouncer in session mode, or PgBouncer 1.21+ with max_prepared_statements) "+
			"or unprepared (for poolers in transaction mode without prepared statements)"),
			"prepared", func(c *Config, s string) error {
				if _, err := db.StatementMode(s); err != nil {
					return err
				}
				c.DBStatements = s
				return nil
			}},
		{doc("PACT_DB_MAX_CONNS", "4 or CPUs", "the most connections the board's pool opens to PostgreSQL (beyond it, calls queue; "+
			"LISTEN takes two more); unset: DATABASE_URL's pool_max_conns, else 4 or the number of CPUs if more"),
			"", func(c *Config, s string) (err error) {
				if s == "" {
					return nil
				}
				n, err := positive(s, 1)
				c.DBMaxConns = int32(n)
				return err
			}},
		{doc("PACT_DB_ACQUIRE_TIMEOUT", "10", "seconds a call waits for a free pool connection before it is refused unavailable "+
			"(\"the database is busy\"); 0 waits as long as the call"),
			"10", func(c *Config, s string) (err error) { c.DBAcquireTimeout, err = nonNegative(s, time.Second); return }},
		{doc("PACT_DB_STATEMENT_TIMEOUT", "30", "seconds one statement may run (PostgreSQL statement_timeout on the pool's connections) "+
			"before it is cancelled and its call refused unavailable; migrations are exempt; 0 keeps the server's setting"),
			"30", func(c *Config, s string) (err error) { c.DBStatementTimeout, err = nonNegative(s, time.Second); return }},
		{doc("PACT_SIGNING_KEY", "generated", "at least 32 random characters; required with DATABASE_URL unless PACT_BOARD_KEYS is set; "+
			"verifies legacy HMAC mandates and seeds the Ed25519 key; embedded default: PACT_DATA_DIR/signing.key"),
			"", func(c *Config, s string) error { c.SigningKey = s; return nil }},
		{doc("PACT_BOARD_KEYS", "", "kid=<base64url 32-byte seed>,… newest first; the first signs, all verify"),
			"", func(c *Config, s string) error { c.BoardKeys = s; return nil }},
		{doc("HOST", "127.0.0.1", "address to listen on"),
			"127.0.0.1", func(c *Config, s string) error { c.Host = s; return nil }},
		{doc("PORT", "8787", "TCP port (8788 when PACT_ROLE=admin; 0 picks a free port)"),
			"", setPort},
		{doc("PACT_ROLE", "board", "board, or admin to serve only /healthz, /readyz and /admin/api/*"),
			"board", setRole},
		{doc("PACT_PUBLIC_URL", "http://127.0.0.1:8787", "URL agents use to reach the board (trailing / stripped); MCP refuses other Host names"),
			"http://127.0.0.1:8787", func(c *Config, s string) (err error) { c.PublicURL, err = httpURL(s); return }},
		{doc("PACT_BOARD_URL", "derived", "board URL in connector URLs and setup commands; else PACT_ADMIN_AUDIENCE minus /admin, else PACT_PUBLIC_URL"),
			"", func(c *Config, s string) (err error) { c.BoardURL, err = optionalURL(s); return }},
		{doc("PACT_AUTH_ISSUER", "", "OAuth issuer for people and agents, verified by the bundled auth-oidc plugin, pinned "+
			"(make build; else name an authissuer plugin in PACT_PLUGINS); unset accepts agent tokens only"),
			"", func(c *Config, s string) (err error) { c.AuthIssuer, err = optionalURL(s); return }},
		{doc("PACT_ADMIN_API", "on", "on/off: off makes this process answer 404 on /admin/api/*"),
			"on", func(c *Config, s string) (err error) { c.AdminAPI, err = parseSwitch(s); return }},
		{doc("PACT_ADMIN_REQUIRE_MFA", "on", "on/off: require the admin token's amr to contain mfa"),
			"on", func(c *Config, s string) (err error) { c.AdminRequireMFA, err = parseSwitch(s); return }},
		{doc("PACT_ADMIN_AUDIENCE", "<PACT_PUBLIC_URL>/admin", "audience of admin tokens"),
			"", func(c *Config, s string) error { c.AdminAudience = strings.TrimRight(s, "/"); return nil }},
		{doc("PACT_ADMIN_UI_URL", "", "Admin UI base URL for task links in notifications (<base>/tasks/<id>)"),
			"", func(c *Config, s string) (err error) { c.AdminUIURL, err = optionalURL(s); return }},
		{doc("PACT_SLACK_WEBHOOK_URL", "", "Slack webhook for the default organization until it sets its own; "+
			"runs the bundled notifier-slack plugin, pinned (make build; else name \"slack\" in PACT_PLUGINS)"),
			"", func(c *Config, s string) (err error) { c.SlackWebhookURL, err = optionalURL(s); return }},
		{doc("PACT_SMTP_URL", "", "smtp://user:pass@host:587?from=board@example.com&tls=starttls|tls|none: people get email of "+
			"the kinds of notice they choose; runs the bundled notifier-email plugin, pinned (make build; else name \"email\" in PACT_PLUGINS)"),
			"", func(c *Config, s string) (err error) { c.SMTPURL, err = smtpURL(s); return }},
		{doc("PACT_EXPORT_FORMAT", "", "tenuo or biscuit: export a credential on every claim with the bundled credential-tenuo "+
			"or credential-biscuit plugin, pinned (make build; else name it in PACT_PLUGINS); unset exports none"),
			"", setExportFormat},
		{doc("PACT_EXPORT_TTL_HOURS", "24", "lifetime cap of exported leaf credentials, in hours (at least 60 s)"),
			"24", setExportTTL},
		{doc("PACT_STALE_MINUTES", "30", "claim lease: a claim with no heartbeat for this long is stale"),
			"30", func(c *Config, s string) (err error) { c.StaleAfter, err = positive(s, time.Minute); return }},
		{doc("PACT_OFFER_LEASE_SECONDS", "10", "how long a task offered to one agent holding pact_events waits for its claim "+
			"before it is offered to the next (docs/events.md, Offers)"),
			"10", func(c *Config, s string) (err error) { c.OfferLease, err = positive(s, time.Second); return }},
		{doc("PACT_A2A_ALLOW_PRIVATE", "off", "on/off: let the board reach remote A2A agents (client a2a-remote) on "+
			"loopback and private addresses too; off reaches public addresses only (docs/a2a.md, Remote agents)"),
			"off", func(c *Config, s string) (err error) { c.A2AAllowPrivate, err = parseSwitch(s); return }},
		{doc("PACT_EXPIRY_WARN_HOURS", "48", "warn this long before a mandate or token expires"),
			"48", func(c *Config, s string) (err error) { c.ExpiryWarn, err = positive(s, time.Hour); return }},
		{doc("PACT_SIGNUP_ENABLED", "off", "on/off: open self-service sign-up"),
			"off", func(c *Config, s string) (err error) { c.SignupEnabled, err = parseSwitch(s); return }},
		{doc("PACT_SIGNUP_MAX_PER_HOUR", "30", "sign-up circuit breaker (not a number: 30; below 0: 0)"),
			"30", setSignupMax},
		{doc("PACT_CONSOLE_LOCAL_SIGNIN", "on with the embedded database, else off", "on/off: print at start a one-time "+
			"link signing the first owner in to the console (docs/console.md, docs/security.md)"),
			"", func(c *Config, s string) (err error) {
				if s == "" { // DATABASE_URL is read first: the embedded default decides
					c.ConsoleLocalSignin = c.Embedded()
					return nil
				}
				c.ConsoleLocalSignin, err = parseSwitch(s)
				return err
			}},
		{doc("PACT_CONSOLE_CLIENT_ID", "", "the console's OAuth client id at PACT_AUTH_ISSUER (authorization code with PKCE); "+
			"unset: no OIDC sign-in to the console"),
			"", func(c *Config, s string) error { c.ConsoleClientID = s; return nil }},
		{doc("PACT_CONSOLE_CLIENT_SECRET", "", "the console client's secret, for an issuer that requires one; unset: a public client"),
			"", func(c *Config, s string) error { c.ConsoleClientSecret = s; return nil }},
		{doc("PACT_PLUGIN_DIR", "bin/plugins", "directory of the bundled plugin binaries and of those named by a relative path in PACT_PLUGINS"),
			"bin/plugins", func(c *Config, s string) error { c.PluginDir = s; return nil }},
		{doc("PACT_PLUGINS", "", "the plugins to run besides the bundled ones: a JSON list of {name, kind, binary, sha256, env}, "+
			"inline or the path of a file (docs/plugins.md); an entry named like a bundled plugin replaces it; "+
			"pact-admin plugin-pin prints an entry"),
			"", func(c *Config, s string) error { c.Plugins = s; return nil }},
		{doc("PACT_PLUGIN_TIMEOUT_SECONDS", "10", "deadline of every plugin call, in seconds"),
			"10", func(c *Config, s string) (err error) { c.PluginTimeout, err = positive(s, time.Second); return }},
		{doc("PACT_DRAIN_SECONDS", "5", "on SIGTERM, how long the board answers /readyz with 503 (its held calls answered at once, "+
			"with reconnect) while still serving, so load balancers stop sending it calls; 0: stop taking connections at once"),
			"5", func(c *Config, s string) (err error) { c.DrainWait, err = nonNegative(s, time.Second); return }},
		{doc("PACT_SHUTDOWN_SECONDS", "25", "then, how long calls in flight get to finish before their connections are closed"),
			"25", func(c *Config, s string) (err error) { c.ShutdownDeadline, err = positive(s, time.Second); return }},
		{doc("PACT_LOG_CHECKPOINT_SECONDS", "60", "at most how long a chain of the log that grew waits for its next signed checkpoint "+
			"(docs/log-checkpoints.md); 0: the board signs none"),
			"60", func(c *Config, s string) (err error) { c.CheckpointEvery, err = nonNegative(s, time.Second); return }},
		{doc("PACT_LOG_CHECKPOINT_ENTRIES", "1000", "a chain that grew by this many entries is checkpointed at once, without waiting"),
			"1000", func(c *Config, s string) (err error) {
				n, err := positive(s, 1)
				c.CheckpointEntries = int64(n)
				return err
			}},
		{doc("PACT_LOG_WITNESSES", "", "comma-separated URLs that receive every signed checkpoint of the log, in order, "+
			"as an HTTP POST (docs/log-checkpoints.md); unset: none"),
			"", setWitnesses},
		{doc("PACT_PPROF_ADDR", "", "host:port serving net/http/pprof on a listener of its own, never the public one; "+
			"keep it on loopback (127.0.0.1:6060): unauthenticated, it shows the process internals; unset serves none"),
			"", setPprofAddr},
		{doc("PACT_METRICS_ADDR", "", "host:port serving /metrics (Prometheus) on a listener of its own, never the public one; "+
			"keep it on loopback or a private network (127.0.0.1:9464); unset serves none"),
			"", setMetricsAddr},
		{doc("PACT_LOG_FORMAT", "text", "text or json"),
			"text", setLogFormat},
		{doc("PACT_LOG_LEVEL", "info", "trace, debug, info, warn, error or off"),
			"info", setLogLevel},
	}
}

func setPort(c *Config, s string) error {
	if s == "" {
		c.Port = -1 // derive picks the role's default
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q is not a port number; expected an integer from 0 to 65535", s)
	}
	c.Port = n
	return nil
}

func setRole(c *Config, s string) error {
	switch Role(strings.ToLower(s)) {
	case RoleBoard:
		c.Role = RoleBoard
	case RoleAdmin:
		c.Role = RoleAdmin
	default:
		return fmt.Errorf("%q is not a role; expected board or admin", s)
	}
	return nil
}

func setExportFormat(c *Config, s string) error {
	switch f := strings.ToLower(s); f {
	case "", "tenuo", "biscuit":
		c.ExportFormat = f
		return nil
	}
	return fmt.Errorf("%q is not an export format; expected tenuo, biscuit or unset", s)
}

func setExportTTL(c *Config, s string) error {
	h, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(h) || math.IsInf(h, 0) || h <= 0 || h > 24*366 {
		return fmt.Errorf("%q is not a duration; expected a positive number of hours", s)
	}
	c.ExportTTL = max(time.Duration(h*float64(time.Hour)), time.Minute)
	return nil
}

// setSignupMax follows the original: a circuit breaker must never keep the
// board from starting, so a non-number means the default and a negative 0.
func setSignupMax(c *Config, s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		n = 30
	}
	c.SignupMaxPerHour = max(n, 0)
	return nil
}

// setPprofAddr accepts what net.Listen accepts as host:port with a numeric
// port, so a typo fails at start-up with the variable's name.
func setPprofAddr(c *Config, s string) (err error) {
	c.PprofAddr, err = listenAddr(s, "127.0.0.1:6060")
	return err
}

// setMetricsAddr accepts what setPprofAddr accepts.
func setMetricsAddr(c *Config, s string) (err error) {
	c.MetricsAddr, err = listenAddr(s, "127.0.0.1:9464")
	return err
}

// listenAddr checks that s is host:port with a numeric port, or empty.
func listenAddr(s, example string) (string, error) {
	if s == "" {
		return "", nil
	}
	_, port, err := net.SplitHostPort(s)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%q is not an address; expected host:port, such as %s", s, example)
	}
	return s, nil
}

func setLogFormat(c *Config, s string) error {
	switch f := strings.ToLower(s); f {
	case "text", "json":
		c.LogFormat = f
		return nil
	}
	return fmt.Errorf("%q is not a log format; expected text or json", s)
}

func setLogLevel(c *Config, s string) error {
	switch l := strings.ToLower(s); l {
	case "trace", "debug", "info", "warn", "error", "off":
		c.LogLevel = l
		return nil
	}
	return fmt.Errorf("%q is not a log level; expected trace, debug, info, warn, error or off", s)
}

func positive(s string, unit time.Duration) (time.Duration, error) {
	n, err := strconv.Atoi(s)
	if most := most(unit); err != nil || n <= 0 || n > most {
		return 0, fmt.Errorf("%q is not a positive whole number of at most %d", s, most)
	}
	return time.Duration(n) * unit, nil
}

// nonNegative is positive that also takes 0 (off).
func nonNegative(s string, unit time.Duration) (time.Duration, error) {
	n, err := strconv.Atoi(s)
	if most := most(unit); err != nil || n < 0 || n > most {
		return 0, fmt.Errorf("%q is not a whole number from 0 to %d", s, most)
	}
	return time.Duration(n) * unit, nil
}

// most is the largest count of unit a variable takes: a 32-bit integer, and
// never more than a time.Duration holds, since 2^31 minutes or hours would
// overflow it into a negative lease or warning time.
func most(unit time.Duration) int {
	return int(min(math.MaxInt32, math.MaxInt64/int64(unit)))
}

// setWitnesses reads PACT_LOG_WITNESSES: absolute http(s) URLs.
func setWitnesses(c *Config, s string) error {
	c.Witnesses = nil
	for u := range strings.SplitSeq(s, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		parsed, err := url.Parse(u)
		if err != nil || (parsed.Scheme != "https" && parsed.Scheme != "http") || parsed.Host == "" {
			return fmt.Errorf("%q is not an http(s) URL", u)
		}
		c.Witnesses = append(c.Witnesses, u)
	}
	return nil
}

// parseSwitch reads on/off in the spellings the original accepts.
func parseSwitch(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a switch; expected on or off (also 1/0, true/false, yes/no)", s)
}

// httpURL checks s is an absolute http(s) URL and strips trailing slashes.
func httpURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The value is not echoed: a webhook URL is a secret.
		return "", errors.New("expected an absolute http:// or https:// URL")
	}
	return strings.TrimRight(s, "/"), nil
}

// smtpURL checks PACT_SMTP_URL the way the notifier-email plugin reads it
// (plugins/notifier-email/config.go), so a value the plugin would refuse
// stops the board at start rather than every email later. The value is
// never echoed: it holds a password.
func smtpURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	const want = "expected smtp://[user:pass@]host[:port]?from=<address>[&tls=starttls|tls|none] (smtps:// for TLS from the start)"
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || u.Opaque != "" {
		return "", errors.New(want)
	}
	q := u.Query()
	for k := range q {
		if k != "from" && k != "tls" {
			return "", fmt.Errorf("unknown parameter %q; %s", k, want)
		}
	}
	if from, err := mail.ParseAddress(q.Get("from")); err != nil || from.Name != "" {
		return "", errors.New("from= must be the sender's email address; " + want)
	}
	switch t := q.Get("tls"); {
	case t != "" && t != "starttls" && t != "tls" && t != "none":
		return "", errors.New("tls= is starttls, tls or none; " + want)
	case u.Scheme == "smtps" && t != "" && t != "tls":
		return "", errors.New("smtps:// is TLS from the start: leave tls= out or use smtp://")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", errors.New("the port is a number from 1 to 65535; " + want)
		}
	}
	return s, nil
}

func optionalURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	return httpURL(s)
}

func joinHostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
