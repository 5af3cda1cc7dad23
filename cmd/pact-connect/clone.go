package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// A --repo that is a git URL is cloned before the code is spent, so a
// failed clone leaves the code good (docs/pact-connect.md, "--repo").

// scpLike is git's user@host:path form (git@github.com:org/web.git).
var scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/]`)

// isGitURL reports whether repo names a repository to clone rather than a
// directory: a URL with a scheme, or git's user@host:path form.
func isGitURL(repo string) bool {
	return strings.Contains(repo, "://") || scpLike.MatchString(repo)
}

// cloneDir is where a clone of url goes: dir when given (--dir), else
// ~/pact/<the repository's name>.
func cloneDir(url, dir, home string) string {
	if dir != "" {
		return dir
	}
	name := strings.TrimSuffix(path.Base(strings.TrimRight(url[strings.LastIndexAny(url, ":/")+1:], "/")), ".git")
	if name == "" || name == "." || name == "/" {
		name = "repo"
	}
	return filepath.Join(home, "pact", name)
}

// cloneRepo clones url into dir with the git on PATH. A dir that is
// already a clone of url is used as it is; any other non-empty dir is
// refused, so nothing of the person's is touched.
func cloneRepo(ctx context.Context, url, dir string) (cloned bool, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return false, fmt.Errorf("--repo %s is a git URL, and git is not on PATH; install git or clone it yourself and pass the directory", url)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		origin, oerr := exec.CommandContext(ctx, "git", "-C", dir, "config", "--get", "remote.origin.url").Output()
		if oerr == nil && strings.TrimSpace(string(origin)) == url {
			return false, nil
		}
		return false, fmt.Errorf("%s is not empty and not a clone of %s; pass --dir for another place, or the directory itself as --repo", dir, url)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", "clone", "--quiet", "--", url, dir)
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0") // never wait for a password nobody types
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(why, '\n'); i >= 0 {
			why = why[i+1:]
		}
		return false, fmt.Errorf("cannot clone %s into %s (%s); the setup code is still good: fix that and run again", url, dir, why)
	}
	return true, nil
}
