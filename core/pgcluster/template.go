package pgcluster

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// initFromTemplate gives a throwaway cluster the data directory initdb
// would write, copied from one initdb wrote once for these PostgreSQL
// binaries and this server user (templateDir). Every test binary and every
// proof's patch starts a throwaway cluster, and initdb's bootstrap costs
// about a second where the copy takes a fraction of it
// (docs/proofs/README.md, "The CI budget, measured"). The copy is the
// cluster's own: nothing it does reaches the template.
func (c *Cluster) initFromTemplate() error {
	tmpl, err := c.templateDir()
	if err != nil {
		return err
	}
	if !whole(tmpl) {
		if err := c.writeTemplate(tmpl); err != nil {
			return err
		}
	}
	if err := reachable(c.Dir, c.cred); err != nil {
		return err
	}
	if err := makePrivate(c.Dir, c.cred); err != nil {
		return err
	}
	// cp -a keeps each file's owner and mode: the server user's, 0700 where
	// initdb made it so.
	if out, err := exec.Command("cp", "-a", filepath.Join(tmpl, "data"), c.dataDir()).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the initdb template %s: %w: %s", tmpl, err, out)
	}
	return nil
}

// templateDir names the template for these binaries and server user under
// the system's temporary directory: a new PostgreSQL (another initdb or
// postgres, by size and modification time) or another user gets its own.
func (c *Cluster) templateDir() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "initdb -U postgres --auth-local=peer --auth-host=reject -E UTF8 --no-locale\n%s\n", c.bin)
	for _, tool := range []string{"initdb", "postgres"} {
		st, err := os.Stat(filepath.Join(c.bin, tool))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d %d\n", tool, st.Size(), st.ModTime().UnixNano())
	}
	if c.cred != nil {
		fmt.Fprintf(h, "uid %d gid %d\n", c.cred.Uid, c.cred.Gid)
	}
	fmt.Fprintf(h, "euid %d\n", os.Geteuid())
	return filepath.Join(os.TempDir(), "pact-pgtest-initdb-"+hex.EncodeToString(h.Sum(nil))[:16]), nil
}

// writeTemplate runs initdb in a directory of its own and renames it to
// tmpl, so that a test binary starting at the same time sees either no
// template or a whole one; when another wrote it first, its is kept.
func (c *Cluster) writeTemplate(tmpl string) error {
	staging, err := os.MkdirTemp(filepath.Dir(tmpl), filepath.Base(tmpl)+".staging-")
	if err != nil {
		return err
	}
	if err := os.Chmod(staging, 0o755); err != nil {
		_ = os.RemoveAll(staging)
		return err
	}
	s := &Cluster{Dir: staging, bin: c.bin, cred: c.cred}
	if err := s.Init(); err != nil {
		_ = os.RemoveAll(staging)
		return err
	}
	err = os.Rename(staging, tmpl)
	if err != nil && !whole(tmpl) {
		// What is there is no template another wrote first but the rest
		// of one (a drop cut short leaves part of it): it goes, and this
		// one takes its place.
		_ = os.RemoveAll(tmpl)
		err = os.Rename(staging, tmpl)
	}
	if err != nil {
		_ = os.RemoveAll(staging)
		if whole(tmpl) {
			return nil
		}
		return errors.Join(errors.New("keep the initdb template"), err)
	}
	return nil
}

// whole reports whether tmpl holds a template initdb finished.
func whole(tmpl string) bool {
	_, err := os.Stat(filepath.Join(tmpl, "data", "PG_VERSION"))
	return err == nil
}

// dropTemplate removes this cluster's template, so that the next
// throwaway runs initdb again.
func (c *Cluster) dropTemplate() {
	if tmpl, err := c.templateDir(); err == nil {
		_ = os.RemoveAll(tmpl)
	}
}
