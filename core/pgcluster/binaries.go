// Package pgcluster runs a PostgreSQL cluster from the server binaries
// installed on the machine: the board's embedded default database and the
// throwaway clusters of the test suite. PostgreSQL refuses to run as root, so
// as root the server runs as the postgres (or nobody) user.
package pgcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// ErrNoBinaries says that no PostgreSQL server binaries were found. Its text
// tells a person how to install them.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found " +
	"in PG_BIN, PATH or /usr/lib/postgresql/*/bin. Install them (Debian/Ubuntu: apt-get install postgresql; " +
	"macOS: brew install postgresql@15), or set DATABASE_URL to a PostgreSQL you already run")

var serverTools = []string{"initdb", "pg_ctl", "postgres"}

// FindBinaries returns the directory holding initdb, pg_ctl and postgres:
// $PG_BIN, else the directory of pg_ctl on PATH (symlinks resolved), else the
// newest /usr/lib/postgresql/<version>/bin.
func FindBinaries() (string, error) {
	if d := os.Getenv("PG_BIN"); d != "" {
		if hasTools(d) {
			return d, nil
		}
		return "", fmt.Errorf("PG_BIN=%s does not hold initdb, pg_ctl and postgres: %w", d, ErrNoBinaries)
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && hasTools(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if hasTools(d) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func hasTools(dir string) bool {
	for _, t := range serverTools {
		if st, err := os.Stat(filepath.Join(dir, t)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// versionOf reads 15 out of /usr/lib/postgresql/15/bin (0 when it is not a number).
func versionOf(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

// serverUser is who runs initdb and postgres: nil (the current user) unless
// we are root, in which case the postgres user, else nobody.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root, and there is no postgres or nobody user for PostgreSQL to run as")
}

// chownTree gives dir and everything under it to cred's user (no-op when not root).
func chownTree(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
}

// reachable reports whether the server user can enter every parent of dir;
// PostgreSQL fails obscurely when it cannot.
func reachable(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		if st.Mode().Perm()&0o001 == 0 {
			if sys, ok := st.Sys().(*syscall.Stat_t); !ok || sys.Uid != cred.Uid {
				return fmt.Errorf("PostgreSQL runs as uid %d, which cannot enter %s; choose a data directory "+
					"outside it with PACT_DATA_DIR (for example /var/lib/pact)", cred.Uid, d)
			}
		}
		if d == "/" || d == "." {
			return nil
		}
	}
}

func run(cred *syscall.Credential, bin string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	return nil
}
