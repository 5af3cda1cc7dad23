package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// connect redeems the code and writes what the agent's client needs, or
// prints it with --dry-run. Nothing is written unless every file can be.
func connect(ctx context.Context, o options, e env) error {
	base, err := boardBase(o.board, o.insecure)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(o.code, codePrefix) {
		return fmt.Errorf("a setup code starts with %s; copy the whole code from the hire's answer", codePrefix)
	}
	if err := preflight(ctx, o, e); err != nil { // before the code is spent
		return err
	}
	c, err := redeem(ctx, base, o.code)
	if err != nil {
		return err
	}
	writes, err := plan(c, base, o, e)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "connected as %s (client %s, project %s)\n", c.AgentID, c.Client, c.Project)
	if o.dry {
		fmt.Fprintln(e.Stdout, "dry run: nothing was written, and this setup code is now used; get a new one to connect")
		for _, w := range writes {
			fmt.Fprintf(e.Stdout, "would write %s (%s, mode %o, %s)\n", w.path, w.what, targetPerm(w.path), keeps(w.kept))
			for _, s := range w.show {
				fmt.Fprintf(e.Stdout, "  %s\n", s)
			}
		}
		fmt.Fprint(e.Stdout, commandShown(c))
		return nil
	}
	for i, w := range writes {
		perm, err := writePrivate(w.path, w.data)
		if err != nil {
			return fmt.Errorf("%v (%d of %d files written)", err, i, len(writes))
		}
		fmt.Fprintf(e.Stdout, "wrote %s (%s, mode %o)\n", w.path, w.what, perm)
	}
	fmt.Fprint(e.Stdout, commandShown(c))
	if c.BoardURL != "" && strings.TrimRight(c.BoardURL, "/") != base {
		fmt.Fprintf(e.Stdout, "note: the board calls itself %s; the files use %s, the URL that reached it from here\n", c.BoardURL, base)
	}
	fmt.Fprintln(e.Stdout, next(c, o, e, writes[0].path))
	return nil
}

// commandShown is what a Runner's connection prints of the command its
// env file sets: the role's PACT_RUNNER_COMMAND, which pact-runner runs
// with sh -c for every task, alone on the line after a heading, so the
// person sees what will run before starting the runner (the setup code is
// spent by then, so there is no prompt: docs/pact-connect.md; SEC-023). A
// command with control characters (a newline, a carriage return) is shown
// quoted, so that none of it hides. Other clients run no command: "".
func commandShown(c *connected) string {
	if c.Client != "runner" {
		return ""
	}
	cmd, ok := c.Settings[runnerCommand]
	if !ok {
		return runnerCommand + " is not set by the role: pact-runner runs its default command (pact-runner --help shows it)\n"
	}
	head := runnerCommand + ", which pact-runner runs with sh -c for every task (a role setting only an owner may set):"
	if strings.ContainsFunc(cmd, unicode.IsControl) {
		return head + " (quoted: it holds control characters)\n" + strconv.Quote(cmd) + "\n"
	}
	return head + "\n" + cmd + "\n"
}

// runnerCommand is the setting pact-runner runs (docs/runner.md).
const runnerCommand = "PACT_RUNNER_COMMAND"

// preflight refuses, before the code is spent, what would fail anyway.
func preflight(ctx context.Context, o options, e env) error {
	if e.Home == "" {
		return errors.New("no home directory: set HOME")
	}
	if o.repoURL != "" {
		if o.dry {
			fmt.Fprintf(e.Stdout, "would clone %s into %s (PACT_RUNNER_REPO)\n", o.repoURL, o.repo)
		} else if cloned, err := cloneRepo(ctx, o.repoURL, o.repo); err != nil {
			return err
		} else if cloned {
			fmt.Fprintf(e.Stdout, "cloned %s into %s (PACT_RUNNER_REPO)\n", o.repoURL, o.repo)
		}
	}
	for _, d := range []string{o.dir, o.repo} {
		if d == "" || (d == o.repo && o.repoURL != "" && o.dry) {
			continue
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Errorf("%s is not a directory", d)
		}
	}
	return nil
}

func keeps(n int) string {
	if n < 0 {
		return "a new file"
	}
	return fmt.Sprintf("merged, keeping %d other entries", n)
}

// next is what the person does after connecting; first is the first
// file written (a Runner's env file).
func next(c *connected, o options, e env, first string) string {
	switch c.Client {
	case "code":
		switch {
		case o.channel:
			return "next: in " + o.dir + ", with pact-channel on PATH: claude --dangerously-load-development-channels server:" +
				channelServer + " (channels are a research preview of Claude Code: docs/hooks.md); keep .mcp.json out of git: it holds the token"
		case o.rewake:
			return "next: start Claude Code in " + o.dir + " (its Stop hook runs " + hookScriptPath(e.HookDir) +
				" " + c.AgentID + " rewake: copy hooks/pact-hook.sh there, executable); keep .mcp.json out of git: it holds the token"
		}
		return "next: start Claude Code in " + o.dir + " (claude mcp list shows " + o.name + "); keep .mcp.json out of git: it holds the token"
	case "gemini":
		return "next: start gemini again (/mcp lists " + o.name + ")"
	case "a2a":
		return "next: give your A2A client the agent's URL ($PACT_A2A_URL) and its token ($PACT_TOKEN) from " +
			shellQuote(first) + " (docs/a2a.md)"
	}
	if e.GOOS == "darwin" {
		plist := filepath.Join(e.Home, "Library", "LaunchAgents", launchLabel(c.AgentID)+".plist")
		return "next: start the runner now and at every login: launchctl bootstrap gui/$(id -u) " + shellQuote(plist)
	}
	return "next: start the runner: set -a; . " + shellQuote(first) + "; pact-runner"
}

// writePrivate replaces the file at path with data, atomically: a new
// file in the same directory, created mode 0600 (or the old file's
// stricter mode) before any byte is written, then renamed over it. It
// creates missing directories mode 0700. A symlink's target is replaced.
// It returns the file's mode.
func writePrivate(path string, data []byte) (fs.FileMode, error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	perm := targetPerm(path)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("cannot create %s: %v", dir, err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+"."+hex.EncodeToString(b)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, fmt.Errorf("cannot write %s: %v", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return 0, fmt.Errorf("cannot write %s: %v", path, err)
	}
	return perm, nil
}

// targetPerm is the mode the file at path gets: 0600, or its own mode
// when that is already as strict or stricter.
func targetPerm(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&^0o600 == 0 {
		return st.Mode().Perm()
	}
	return 0o600
}

// mustJSON is v as JSON, URLs unescaped.
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSpace(b.Bytes())
}
