package pgcluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Who may connect to a cluster (docs/security.md, finding 11; SEC-011).
// Two locks, either of which keeps other local users out:
//
//   - the cluster's directory and its socket's directory are mode 0700 and
//     belong to the server's user, so no one else can reach the socket (root
//     can: it passes every permission check, which is how a board running as
//     root talks to a server running as postgres);
//   - pg_hba.conf admits only Unix-socket connections checked by peer
//     authentication, and pg_ident.conf maps only the board's own user and
//     the server's to the database user postgres.
//
// Both are (re)applied at every start, so a cluster made by an older board,
// which trusted every local connection, is made private on its next start.

// identMap names the user map of pg_ident.conf that pg_hba.conf refers to.
const identMap = "pact"

// socketDirRecord is the file in a cluster's directory naming the random
// socket directory of a cluster whose own path is too long for a socket.
const socketDirRecord = "socket-dir"

// hbaRules admits only peer-authenticated Unix-socket connections, of the
// operating-system users identMap maps.
const hbaRules = `# Written by PACT Board at every start of its embedded PostgreSQL (core/pgcluster;
# docs/security.md, finding 11). Edits here are overwritten: to run PostgreSQL
# with rules of your own, run it yourself and set DATABASE_URL.
local all all peer map=` + identMap + "\n"

// makePrivate creates dir when missing (its parents open to the server's user,
// which must cross them) and makes it mode 0700, owned by cred's user.
func makePrivate(dir string, cred *syscall.Credential) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("make %s private (mode 0700): %w; it must belong to the user the board runs as", dir, err)
	}
	if cred == nil {
		return nil
	}
	return os.Lchown(dir, int(cred.Uid), int(cred.Gid))
}

// isPrivate reports whether dir is a real directory (no symlink), mode 0700,
// owned by cred's user: one no other local user made or can enter.
func isPrivate(dir string, cred *syscall.Credential) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Uid == uidOf(cred)
}

func uidOf(cred *syscall.Credential) uint32 {
	if cred == nil {
		return uint32(os.Geteuid())
	}
	return cred.Uid
}

// socketDirFits reports whether a socket in dir stays within the ~107 bytes
// a Unix socket's path may have.
func socketDirFits(dir string) bool {
	return len(dir)+len("/.s.PGSQL.5432.lock") <= 100
}

// findSocketDir is where the server's socket is: DIR/run, or, when that path
// is too long, the private directory recorded in DIR/socket-dir ("" when
// there is none yet, or it is gone or no longer private: the next start
// makes a new one).
func (c *Cluster) findSocketDir() string {
	own := filepath.Join(c.Dir, "run")
	if socketDirFits(own) {
		return own
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, socketDirRecord))
	if err != nil {
		return ""
	}
	dir := strings.TrimSpace(string(b))
	if !filepath.IsAbs(dir) || !isPrivate(dir, c.cred) {
		return ""
	}
	return dir
}

// prepareSocketDir makes the socket's directory private, or, for a cluster
// whose own path is too long, makes a new one with a random name (never a
// name another user could create first) and records it for the next start.
func (c *Cluster) prepareSocketDir() error {
	if c.SocketDir != "" && !strings.HasPrefix(c.SocketDir, c.Dir+string(filepath.Separator)) {
		if isPrivate(c.SocketDir, c.cred) {
			return nil
		}
		c.SocketDir = ""
	}
	if c.SocketDir != "" {
		return makePrivate(c.SocketDir, c.cred)
	}
	dir, err := os.MkdirTemp("", "pact-pg-")
	if err != nil {
		return fmt.Errorf("make a socket directory for %s (its own path is too long for a socket): %w", c.Dir, err)
	}
	if err := makePrivate(dir, c.cred); err != nil {
		return err
	}
	record := filepath.Join(c.Dir, socketDirRecord)
	if err := os.WriteFile(record, []byte(dir+"\n"), 0o600); err != nil {
		return err
	}
	if c.cred != nil {
		if err := os.Lchown(record, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return err
		}
	}
	c.SocketDir = dir
	return nil
}

// writeAccessRules writes pg_hba.conf and pg_ident.conf, reporting whether
// either changed (a running server must then reload them).
func (c *Cluster) writeAccessRules() (changed bool, err error) {
	users, err := peerUsers(c.cred)
	if err != nil {
		return false, err
	}
	ident := "# Written by PACT Board at every start (see pg_hba.conf): the operating-system users\n" +
		"# that may connect, all as the database superuser postgres.\n"
	for _, u := range users {
		ident += identMap + " " + u + " postgres\n"
	}
	for name, text := range map[string]string{"pg_hba.conf": hbaRules, "pg_ident.conf": ident} {
		path := filepath.Join(c.dataDir(), name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, []byte(text)) {
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return false, err
		}
		if c.cred != nil {
			if err := os.Lchown(path, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
				return false, err
			}
		}
		changed = true
	}
	return changed, nil
}

// peerUsers names the operating-system users that may connect: this
// process's and, when it differs, the server's.
func peerUsers(cred *syscall.Credential) ([]string, error) {
	me, err := user.Current()
	if err != nil {
		return nil, fmt.Errorf("cannot tell this process's user name (uid %d), which the embedded PostgreSQL's "+
			"peer authentication needs: give the uid a name in /etc/passwd, or set DATABASE_URL: %w", os.Geteuid(), err)
	}
	users := []string{me.Username}
	if cred != nil {
		server, err := user.LookupId(strconv.Itoa(int(cred.Uid)))
		if err != nil {
			return nil, fmt.Errorf("name the server's user (uid %d): %w", cred.Uid, err)
		}
		if server.Username != me.Username {
			users = append(users, server.Username)
		}
	}
	// Whoever's they are: this process's name is written to pg_ident.conf
	// too, so a server run as this process's user is no exception.
	for _, u := range users {
		if u == "" || strings.ContainsAny(u, " \t\n#\"") {
			return nil, errors.New("user name " + strconv.Quote(u) + " cannot be written to pg_ident.conf; set DATABASE_URL")
		}
	}
	return users, nil
}

// secure applies the access rules above to the cluster's directories and
// configuration, reporting whether the configuration changed.
func (c *Cluster) secure() (configChanged bool, err error) {
	if err := makePrivate(c.Dir, c.cred); err != nil {
		return false, err
	}
	if err := c.prepareSocketDir(); err != nil {
		return false, err
	}
	return c.writeAccessRules()
}
