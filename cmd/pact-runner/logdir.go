package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// The log directory holds each run's output (<task id>.log) and the file a
// command asks for subtasks in (<task id>.subtasks), which the runner posts
// as its agent. Whoever can write there can make the runner post tasks, and
// whoever can read there learns the task ids, so the directory is the
// user's own and no one else's (docs/runner.md "The log directory";
// docs/invariants.md SEC-019).

// defaultLogDir is $XDG_STATE_HOME/pact-runner, else
// ~/.local/state/pact-runner: the XDG Base Directory specification's place
// for state a program keeps between runs, such as logs. A relative
// XDG_STATE_HOME is ignored, as the specification says.
func defaultLogDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "pact-runner"), nil
	}
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", errors.New("PACT_RUNNER_LOG_DIR is not set and neither XDG_STATE_HOME nor HOME is an absolute path: " +
			"set PACT_RUNNER_LOG_DIR to a directory only you can use (mode 0700)")
	}
	return filepath.Join(home, ".local", "state", "pact-runner"), nil
}

// secureLogDir creates dir mode 0700 (and its missing parents 0700) when
// there is none, then refuses it unless it is safe (checkLogDir).
func secureLogDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("cannot create the log directory's parent: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cannot create the log directory: %w", err)
	}
	return checkLogDir(dir)
}

// checkLogDir refuses a log directory that is a symbolic link, not a
// directory, owned by another user, or open to the group or others (any
// bit of 0077), saying what it found and what to do.
func checkLogDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("log directory %s: %w", dir, err)
	}
	const fix = "set PACT_RUNNER_LOG_DIR to a directory of your own with mode 0700 (by default $XDG_STATE_HOME/pact-runner, else ~/.local/state/pact-runner)"
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("log directory %s is a symbolic link; the runner does not follow one there: point PACT_RUNNER_LOG_DIR at the directory itself, or %s", dir, fix)
	case !st.IsDir():
		return fmt.Errorf("log directory %s is not a directory: remove it, or %s", dir, fix)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("log directory %s is owned by %s, not by you (%s): its owner could read the task ids and write the "+
			"subtasks this runner posts as its agent; remove it, or %s", dir, who(int(sys.Uid)), who(os.Geteuid()), fix)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("log directory %s has mode %04o: group or other users may use it, and so read the task ids and write the "+
			"subtasks this runner posts as its agent; run chmod 700 %s, or %s", dir, perm, dir, fix)
	}
	return nil
}

// who is a user as "name (uid n)", or "uid n" when the name is unknown.
func who(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil {
		return u.Username + " (uid " + id + ")"
	}
	return "uid " + id
}

// openNew creates the file name in the log directory for writing, after
// checking the directory again: a file already there is removed first (a
// symbolic link is removed, never followed), then created with O_EXCL and
// O_NOFOLLOW, so the runner writes only a file it has just made.
func openNew(dir, name string) (*os.File, string, error) {
	if err := secureLogDir(dir); err != nil {
		return nil, "", err
	}
	p := filepath.Join(dir, name)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, "", err
	}
	return f, p, nil
}

// readOwnFile reads a file of the log directory that the command wrote,
// without following a symbolic link, and only when it is a regular file of
// this user; a missing file reads as nil. O_NONBLOCK keeps a FIFO put
// there from holding the runner.
func readOwnFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%s is a symbolic link; the runner reads only a regular file written there, never a link to one elsewhere", path)
	case err != nil:
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return nil, fmt.Errorf("%s is owned by %s, not by you (%s)", path, who(int(sys.Uid)), who(os.Geteuid()))
	}
	return io.ReadAll(f)
}
