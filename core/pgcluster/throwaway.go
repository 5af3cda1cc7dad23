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
	cmd      *exec.Cmd
	done     chan struct{} // closed when cmd has exited
	settings []string      // the caller's server settings, kept for Up
}

// StartThrowaway creates and starts a throwaway cluster. settings are
// further server settings (name=value), after the throwaway's own.
func StartThrowaway(ctx context.Context, settings ...string) (*Throwaway, error) {
	// Not t.TempDir: its parent is private to root, and the server may run as
	// the postgres user.
	dir, err := os.MkdirTemp("", "pact-pgtest-")
	if err != nil {
		return nil, err
	}
	t := &Throwaway{}
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
	if err := t.initFromTemplate(); err != nil {
		return fail(err)
	}
	if _, err := t.secure(); err != nil {
		return fail(err)
	}
	t.settings = settings
	if err := t.spawn(); err != nil {
		return fail(err)
	}
	if err := t.waitStarted(ctx); err != nil {
		t.Destroy()
		// A server that does not start from the template's copy may have
		// met a damaged template: the next throwaway writes it again.
		t.dropTemplate()
		return nil, err
	}
	return t, nil
}

// waitStarted waits until the server accepts connections, or says at once
// that it exited before it did, with the end of its log.
func (t *Throwaway) waitStarted(ctx context.Context) error {
	ready, cancel := context.WithCancel(ctx)
	defer cancel()
	// The watcher holds this server's done channel: a later spawn replaces
	// t.done while the watcher may not yet have run.
	done := t.done
	go func() {
		select {
		case <-done:
			cancel()
		case <-ready.Done():
		}
	}()
	err := t.waitReady(ready)
	select {
	case <-done:
		log, _ := os.ReadFile(filepath.Join(t.Dir, "postgres.log"))
		if len(log) > 2000 {
			log = log[len(log)-2000:]
		}
		return fmt.Errorf("throwaway PostgreSQL exited before it accepted connections:\n%s", log)
	default:
		return err
	}
}

// Pid is the server's process id (its postmaster, whose children are the
// backends), or 0 while it is down.
func (t *Throwaway) Pid() int {
	if t.cmd == nil || t.cmd.Process == nil {
		return 0
	}
	select {
	case <-t.done:
		return 0
	default:
		return t.cmd.Process.Pid
	}
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

// spawn starts the server as a child of this process, appending to its log.
func (t *Throwaway) spawn() error {
	log, err := os.OpenFile(filepath.Join(t.Dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	args := []string{"-D", t.dataDir(), "-k", t.SocketDir,
		"-p", strconv.Itoa(t.Port), "-c", "listen_addresses=", "-c", "unix_socket_permissions=0700", "-c", "fsync=off",
		"-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"}
	for _, setting := range t.settings {
		args = append(args, "-c", setting)
	}
	cmd := exec.Command(filepath.Join(t.bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: t.cred, Pdeathsig: syscall.SIGQUIT}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.cmd, t.done = cmd, done
	return nil
}

// Down stops the server the way pg_ctl stop -m mode does: "fast" (SIGINT:
// sessions are ended with admin_shutdown, then a checkpoint) or "immediate"
// (SIGQUIT: every process quits at once, and the next start recovers from
// the WAL). It returns when the server has exited. Up starts it again;
// between the two, calls meet a database that is down. Not safe for
// concurrent use.
func (t *Throwaway) Down(mode string) error {
	sig, err := stopSignal(mode)
	if err != nil {
		return err
	}
	if err := t.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("stop PostgreSQL (%s): %w", mode, err)
	}
	select {
	case <-t.done:
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("PostgreSQL did not stop within 60s (%s)", mode)
	}
}

// Up starts the server after Down, and waits until it accepts connections.
func (t *Throwaway) Up(ctx context.Context) error {
	if err := t.spawn(); err != nil {
		return fmt.Errorf("start PostgreSQL again: %w", err)
	}
	return t.waitReady(ctx)
}

// Restart is Down then Up: pg_ctl restart -m mode for a throwaway server,
// which is this process's child rather than pg_ctl's.
func (t *Throwaway) Restart(ctx context.Context, mode string) error {
	if err := t.Down(mode); err != nil {
		return err
	}
	return t.Up(ctx)
}

func stopSignal(mode string) (syscall.Signal, error) {
	switch mode {
	case "fast":
		return syscall.SIGINT, nil
	case "immediate":
		return syscall.SIGQUIT, nil
	case "smart":
		return syscall.SIGTERM, nil
	}
	return 0, fmt.Errorf("pgcluster: unknown shutdown mode %q; expected fast, immediate or smart", mode)
}
