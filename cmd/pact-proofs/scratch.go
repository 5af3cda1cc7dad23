package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func hash(s string) uint32 {
	var h uint32 = 2166136261
	for i := range len(s) {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// sourceFiles lists what git would commit: the tracked files as they are
// now, and the untracked ones that are not ignored, so a mutation is tried
// against the tree being worked on.
func sourceFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil {
			files = append(files, f)
		}
	}
	return files, nil
}

// scratch makes dir a fresh copy of files, with an empty git repository
// so `git apply` takes the patch's paths from dir.
func scratch(root, dir string, files []string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(root, f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	// Some evidence lists the tracked files (`git ls-files`), so the copy's
	// index holds them.
	return gitAdd(dir)
}

// gitAdd brings the index of dir's repository up to date with paths (all
// of dir when none are given).
func gitAdd(dir string, paths ...string) error {
	cmd := exec.Command("git", append([]string{"add", "-A", "--"}, paths...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git add: %v: %s", err, out)
	}
	return nil
}

func copyFile(from, to string) error {
	st, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, st.Mode().Perm())
}

// touched returns the paths a patch changes (`git apply --numstat`).
func touched(dir, patch string) ([]string, error) {
	cmd := exec.Command("git", "apply", "--numstat", patch)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.SplitN(sc.Text(), "\t", 3); len(f) == 3 {
			paths = append(paths, f[2])
		}
	}
	return paths, nil
}

// restore puts the touched paths back as they are in root.
func restore(root, dir string, paths []string) error {
	var errs []error
	for _, p := range paths {
		dst := filepath.Join(dir, p)
		if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			errs = append(errs, copyFile(filepath.Join(root, p), dst))
		}
	}
	return errors.Join(errs...)
}

// try applies one patch in dir, runs its contract's evidence and restores
// dir.
func try(root, dir string, j job, timeout time.Duration) (r result) {
	r.job = j
	start := time.Now()
	defer func() { r.Took = time.Since(start) }()
	if len(j.Evidence) == 0 {
		r.Outcome, r.Detail = "broken", "docs/invariants.md has no Evidence line for "+j.ID
		return r
	}
	paths, err := touched(dir, j.Path)
	if err != nil || len(paths) == 0 {
		r.Outcome, r.Detail = "broken", "the patch is not a git diff that changes anything"
		return r
	}
	applied := false
	defer func() {
		err := restore(root, dir, paths)
		if err == nil && applied {
			err = gitAdd(dir, paths...)
		}
		if err != nil {
			// The next patch would run on a damaged copy: stop here.
			fmt.Fprintln(os.Stderr, "pact-proofs: restoring", dir, ":", err)
			os.Exit(2)
		}
	}()
	apply := exec.Command("git", "apply", j.Path)
	apply.Dir = dir
	if out, err := apply.CombinedOutput(); err != nil {
		r.Outcome, r.Detail = "broken", "does not apply: "+oneLine(string(out))
		return r
	}
	applied = true
	if err := gitAdd(dir, paths...); err != nil {
		r.Outcome, r.Detail = "broken", err.Error()
		return r
	}
	r.Outcome, r.Detail, r.Suites = evidenceRun(dir, j.Evidence, j.Last, timeout, j.Env)
	return r
}
