package pgcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Shared is this process's use of a cluster that several processes (a board
// and pact-admin, say) may use at once. The first user starts the server and
// the last one to leave stops it.
//
// Two lock files coordinate them: start.lock (exclusive) serialises starting
// and stopping; users.lock is held shared by every process using the server,
// so a leaving process knows it is the last when it can take it exclusively.
type Shared struct {
	*Cluster
	startLock *os.File
	usersLock *os.File
}

// Acquire initialises the cluster under dir when needed, starts its server
// unless one already runs, creates database db, and registers this process
// as a user. Call Release when done.
func Acquire(ctx context.Context, dir, db string) (*Shared, error) {
	c, err := New(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", c.Dir, err)
	}
	s := &Shared{Cluster: c}
	if s.startLock, err = lockFile(filepath.Join(c.Dir, "start.lock"), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	defer unlock(s.startLock)
	if s.usersLock, err = lockFile(filepath.Join(c.Dir, "users.lock"), syscall.LOCK_SH); err != nil {
		return nil, err
	}
	fail := func(err error) (*Shared, error) {
		unlock(s.usersLock)
		return nil, err
	}
	if err := c.Init(); err != nil {
		return fail(err)
	}
	// Under start.lock: another process may have made the socket directory
	// since New looked for it.
	c.SocketDir = c.findSocketDir()
	configChanged, err := c.secure()
	if err != nil {
		return fail(err)
	}
	switch {
	case !c.Running(ctx):
		if err := c.Start(ctx); err != nil {
			return fail(err)
		}
	case configChanged:
		// A server an older board started still trusts every local
		// connection until it reads the rules just written.
		if err := c.reload(); err != nil {
			return fail(fmt.Errorf("reload the access rules of the running PostgreSQL: %w", err))
		}
	}
	if err := c.CreateDatabase(ctx, db, ""); err != nil {
		return fail(fmt.Errorf("create database %s: %w", db, err))
	}
	return s, nil
}

// Release unregisters this process and stops the server when no other
// process uses it.
func (s *Shared) Release() error {
	start, err := lockFile(filepath.Join(s.Dir, "start.lock"), syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock(start)
	unlock(s.usersLock)
	last, err := os.OpenFile(filepath.Join(s.Dir, "users.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer last.Close()
	if err := syscall.Flock(int(last.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil // another process still uses the server
	}
	defer syscall.Flock(int(last.Fd()), syscall.LOCK_UN)
	if !s.Running(context.Background()) {
		return nil
	}
	return s.Stop()
}

func lockFile(path string, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

func unlock(f *os.File) {
	if f == nil {
		return
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	_ = f.Close()
}
