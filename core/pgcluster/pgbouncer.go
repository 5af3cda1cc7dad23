package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// PgBouncer is a PgBouncer process in front of a cluster, for the checks of
// the board behind a pooler (docs/operations.md, "PostgreSQL behind a
// pooler"). It listens on a Unix socket in its own temporary directory and
// trusts every client; its process dies with this one.
type PgBouncer struct {
	// Dir holds its configuration, log and socket.
	Dir string
	// Port is the port number in the socket's name (no TCP port is opened).
	Port int
	// Version is what `pgbouncer --version` printed first, e.g. "PgBouncer
	// 1.18.0"; Major and Minor are its numbers (1 and 18).
	Version      string
	Major, Minor int

	cmd  *exec.Cmd
	done chan struct{}
}

// PgBouncerOptions shape StartPgBouncer.
type PgBouncerOptions struct {
	// Binary is the pgbouncer executable.
	Binary string
	// Host and Port are the server's: a socket directory or an address.
	Host string
	Port uint16
	// PoolMode is session, transaction or statement (empty: transaction).
	PoolMode string
	// Settings are further lines of the [pgbouncer] section ("name = value").
	Settings []string
	// DatabaseParams are further parameters of the databases' entry, such
	// as connect_query='SET jit = off'.
	DatabaseParams string
}

// StartPgBouncer writes a configuration that maps every database to the
// server at o.Host:o.Port, starts PgBouncer in the foreground (as the
// server's user when this process is root: PgBouncer refuses to run as
// root) and waits until it answers.
func StartPgBouncer(ctx context.Context, o PgBouncerOptions) (*PgBouncer, error) {
	version, major, minor, err := PgBouncerVersion(o.Binary)
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pact-pgbouncer-")
	if err != nil {
		return nil, err
	}
	p := &PgBouncer{Dir: dir, Port: 6432, Version: version, Major: major, Minor: minor, done: make(chan struct{})}
	fail := func(err error) (*PgBouncer, error) {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start PgBouncer: %w", err)
	}
	mode := o.PoolMode
	if mode == "" {
		mode = "transaction"
	}
	conf := []string{
		"[databases]",
		strings.TrimSpace(fmt.Sprintf("* = host=%s port=%d %s", o.Host, o.Port, o.DatabaseParams)),
		"[pgbouncer]",
		"listen_addr =",
		"unix_socket_dir = " + dir,
		fmt.Sprintf("listen_port = %d", p.Port),
		"auth_type = trust",
		"auth_file = " + filepath.Join(dir, "users.txt"),
		"pool_mode = " + mode,
		"logfile = " + filepath.Join(dir, "pgbouncer.log"),
		"max_client_conn = 500",
		"default_pool_size = 20",
		"admin_users = postgres",
	}
	conf = append(conf, o.Settings...)
	ini := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(ini, []byte(strings.Join(conf, "\n")+"\n"), 0o644); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "users.txt"), []byte(`"postgres" ""`+"\n"), 0o644); err != nil {
		return fail(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fail(err)
	}
	if err := chownTree(dir, cred); err != nil {
		return fail(err)
	}
	p.cmd = exec.Command(o.Binary, ini)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return fail(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	if err := p.waitReady(ctx); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// PgBouncerVersion runs `bin --version` and returns its first line, e.g.
// "PgBouncer 1.18.0", with its major and minor numbers.
func PgBouncerVersion(bin string) (version string, major, minor int, err error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", 0, 0, fmt.Errorf("%s --version: %w", bin, err)
	}
	version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	if _, err := fmt.Sscanf(strings.TrimPrefix(version, "PgBouncer "), "%d.%d", &major, &minor); err != nil {
		return "", 0, 0, fmt.Errorf("%s --version printed %q, not PgBouncer's version", bin, version)
	}
	return version, major, minor, nil
}

// DSN returns a connection string for database db through PgBouncer.
func (p *PgBouncer) DSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", p.Dir, p.Port, db)
}

// Log is PgBouncer's log so far.
func (p *PgBouncer) Log() string {
	b, _ := os.ReadFile(filepath.Join(p.Dir, "pgbouncer.log"))
	return string(b)
}

func (p *PgBouncer) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		// The admin console answers without reaching the server.
		conn, err := pgx.Connect(cctx, p.DSN("pgbouncer")+" default_query_exec_mode=simple_protocol")
		cancel()
		if err == nil {
			_ = conn.Close(ctx)
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("PgBouncer exited: %s", p.Log())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.Join(fmt.Errorf("PgBouncer did not answer within 10s: %s", p.Log()), err)
		}
	}
}

// Stop ends PgBouncer (SIGTERM: at once) and removes its directory.
func (p *PgBouncer) Stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	}
	_ = os.RemoveAll(p.Dir)
}
