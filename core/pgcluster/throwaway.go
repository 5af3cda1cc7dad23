package pgcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Throwaway is a fresh cluster in a new temporary directory, tuned for tests
// (no fsync). Its server is a child process that dies with this one, so a
// crashed test binary leaves no server behind.
type Throwaway struct {
	*Cluster
	cmd  *exec.Cmd
	done chan struct{}
}

// StartThrowaway creates and starts a throwaway cluster.
func StartThrowaway(ctx context.Context) (*Throwaway, error) {
	// Not t.TempDir: its parent is private to root, and the server may run as
	// the postgres user.
	dir, err := os.MkdirTemp("", "pact-pgtest-")
	if err != nil {
		return nil, err
	}
	t := &Throwaway{done: make(chan struct{})}
	fail := func(err error) (*Throwaway, error) {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("throwaway PostgreSQL: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fail(err)
	}
	if t.Cluster, err = New(dir); err != nil {
		return fail(err)
	}
	t.SocketDir = filepath.Join(t.Dir, "run")
	if err := t.Init(); err != nil {
		return fail(err)
	}
	if _, err := t.secure(); err != nil {
		return fail(err)
	}
	log, err := os.Create(filepath.Join(t.Dir, "postgres.log"))
	if err != nil {
		return fail(err)
	}
	defer log.Close()
	t.cmd = exec.Command(filepath.Join(t.bin, "postgres"), "-D", t.dataDir(), "-k", t.SocketDir,
		"-p", strconv.Itoa(t.Port), "-c", "listen_addresses=", "-c", "unix_socket_permissions=0700", "-c", "fsync=off",
		"-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300")
	t.cmd.Stdout, t.cmd.Stderr = log, log
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: t.cred, Pdeathsig: syscall.SIGQUIT}
	if err := t.cmd.Start(); err != nil {
		return fail(err)
	}
	go func() { _ = t.cmd.Wait(); close(t.done) }()
	if err := t.waitReady(ctx); err != nil {
		t.Destroy()
		return nil, err
	}
	return t, nil
}

// Destroy stops the server (fast shutdown) and removes the directory.
func (t *Throwaway) Destroy() {
	if t.cmd != nil && t.cmd.Process != nil {
		_ = t.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-t.done:
		case <-time.After(10 * time.Second):
			_ = t.cmd.Process.Kill()
		}
	}
	_ = os.RemoveAll(t.Dir)
}
