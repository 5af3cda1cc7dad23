package pgcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is one PostgreSQL data directory and the server that serves it over
// a Unix socket.
type Cluster struct {
	// Dir is the cluster's directory; the data files are in Dir/data.
	Dir string
	// SocketDir holds the server's Unix socket.
	SocketDir string
	// Port is the port number in the socket's name (no TCP port is opened).
	Port int

	bin  string
	cred *syscall.Credential
}

// New describes the cluster kept under dir (created when missing). It finds
// the server binaries and who the server runs as, but starts nothing.
func New(dir string) (*Cluster, error) {
	bin, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: abs, Port: 5432, bin: bin, cred: cred}
	c.SocketDir = c.findSocketDir()
	return c, nil
}

func (c *Cluster) dataDir() string { return filepath.Join(c.Dir, "data") }

// DSN returns a connection string for database db over the Unix socket. The
// server knows the client by its operating-system user (peer
// authentication), so the connection string carries no password.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", c.SocketDir, c.Port, db)
}

// Initialized reports whether initdb has already run in this cluster's directory.
func (c *Cluster) Initialized() bool {
	_, err := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION"))
	return err == nil
}

// Init runs initdb when the cluster has no data yet. The cluster's directory
// is private to the server's user; Start writes who may connect.
func (c *Cluster) Init() error {
	if c.Initialized() {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.Dir), 0o755); err != nil {
		return err
	}
	if err := reachable(c.Dir, c.cred); err != nil {
		return err
	}
	if err := makePrivate(c.Dir, c.cred); err != nil {
		return err
	}
	if err := chownTree(c.Dir, c.cred); err != nil {
		return err
	}
	return run(c.cred, filepath.Join(c.bin, "initdb"), "-D", c.dataDir(), "-U", "postgres",
		"--auth-local=peer", "--auth-host=reject", "-E", "UTF8", "--no-locale", "--no-sync")
}

// Running reports whether a server answers on this cluster's socket.
func (c *Cluster) Running(ctx context.Context) bool {
	if c.SocketDir == "" {
		return false // no socket directory yet: nothing can be listening
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return false
	}
	_ = conn.Close(ctx)
	return true
}

// Start starts the server with pg_ctl and waits until it accepts
// connections. The server outlives this process; Stop ends it. extra are
// further server settings (name=value). It first makes the cluster's
// directories private and writes who may connect (access.go).
func (c *Cluster) Start(ctx context.Context, extra ...string) error {
	if _, err := c.secure(); err != nil {
		return err
	}
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses='' -c unix_socket_permissions=0700", c.SocketDir, c.Port)
	for _, s := range extra {
		opts += " -c " + s
	}
	logFile := filepath.Join(c.Dir, "postgres.log")
	if err := run(c.cred, filepath.Join(c.bin, "pg_ctl"), "-D", c.dataDir(), "-l", logFile,
		"-o", opts, "-w", "-t", "60", "start"); err != nil {
		tail, _ := os.ReadFile(logFile)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("start PostgreSQL in %s: %w\n%s", c.Dir, err, tail)
	}
	return c.waitReady(ctx)
}

func (c *Cluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for !c.Running(ctx) {
		if time.Now().After(deadline) {
			return fmt.Errorf("PostgreSQL in %s did not accept connections within 60s", c.Dir)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Stop shuts the server down (fast mode: sessions are ended, data is kept).
func (c *Cluster) Stop() error {
	return run(c.cred, filepath.Join(c.bin, "pg_ctl"), "-D", c.dataDir(), "-m", "fast", "-w", "stop")
}

// Restart restarts the server with pg_ctl restart -m mode ("fast",
// "immediate" or "smart"), with the settings it was started with, and waits
// until it accepts connections again. Sessions end as in that mode of
// pg_ctl stop; after "immediate" the server recovers from the WAL first.
func (c *Cluster) Restart(ctx context.Context, mode string) error {
	if _, err := stopSignal(mode); err != nil {
		return err
	}
	logFile := filepath.Join(c.Dir, "postgres.log")
	if err := run(c.cred, filepath.Join(c.bin, "pg_ctl"), "-D", c.dataDir(), "-l", logFile,
		"-m", mode, "-w", "-t", "60", "restart"); err != nil {
		return fmt.Errorf("restart PostgreSQL in %s (-m %s): %w", c.Dir, mode, err)
	}
	return c.waitReady(ctx)
}

// reload makes a running server read its configuration files again.
func (c *Cluster) reload() error {
	return run(c.cred, filepath.Join(c.bin, "pg_ctl"), "-D", c.dataDir(), "reload")
}

// CreateDatabase creates database name, cloned from template when it is not
// empty. An existing database is left alone.
func (c *Cluster) CreateDatabase(ctx context.Context, name, template string) error {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	q := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if template != "" {
		q += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	}
	_, err = conn.Exec(ctx, q)
	return err
}

// String names the cluster for logs.
func (c *Cluster) String() string {
	return c.Dir + " (socket " + c.SocketDir + ":" + strconv.Itoa(c.Port) + ")"
}
