// Package browsertest gives tests a real browser and a real OpenID
// provider, both written by others, so the web console's journeys
// (docs/console-testing.md) run the way a person's would:
//
//   - Start launches Debian's Chromium headless through playwright-core (a
//     long-lived Node driver): a test opens pages, clicks by role and name,
//     fills by label, waits for text, takes screenshots, runs axe-core and
//     reads cookies and localStorage, and can do Go-side work (an agent's
//     MCP call, a database check) between any two steps.
//   - StartProvider runs oidc-provider on a loopback port with one client,
//     RS256 JWT access tokens for the board's audience and a sign-in form
//     that accepts the users the test names; for an MCP client's sign-in,
//     also dynamic client registration and tokens for the resource a
//     client names.
//
// The npm packages are pinned by the lock files under js/ and installed by
// sdk/npmtest. Without Node.js, npm or Chromium the test fails with how to
// install them; it never skips, so a suite cannot pass without the check.
package browsertest

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/sdk/npmtest"
)

// js holds the two Node harnesses and their pinned npm packages; embedded
// so callers in any directory find them.
//
//go:embed js/browser/driver.mjs js/browser/package.json js/browser/package-lock.json
//go:embed js/oidc/provider.mjs js/oidc/package.json js/oidc/package-lock.json
var js embed.FS

// Timeout bounds each browser step (a click waits for its element up to
// it) and, with a margin, each command's round trip.
const Timeout = 15 * time.Second

// Chromium returns the path of the Chromium binary: chromium on PATH, else
// /usr/bin/chromium. It fails t with how to install it when neither exists.
func Chromium(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	t.Fatalf("chromium is not installed: the browser tests drive it headless " +
		"(Debian/Ubuntu: apt-get install chromium, or run make install-deps as root)")
	return ""
}

// Browser is one headless Chromium driven by the Node driver; Start closes
// it at the test's cleanup.
type Browser struct {
	t       testing.TB
	version string

	mu     sync.Mutex // one command at a time: the driver answers in order
	stdin  io.WriteCloser
	lines  chan []byte     // stdout, a line each; closed when the driver exits
	stderr *logtest.Buffer // the subprocess's stderr, read while it writes
	cmd    *exec.Cmd
	nextID int
	pages  int
}

// Start launches Chromium headless and returns it; it is closed when t
// ends. Pages are opened with Browser.Page.
func Start(t testing.TB) *Browser {
	t.Helper()
	chromium := Chromium(t)
	dir, script := install(t, "browser", "pact-browsertest-driver", "playwright-core/package.json", "driver")
	cmd := exec.Command("node", script, chromium, strconv.Itoa(int(Timeout/time.Millisecond)))
	cmd.Dir = dir
	b := &Browser{t: t, cmd: cmd, stderr: &logtest.Buffer{}, lines: make(chan []byte, 1)}
	cmd.Stderr = b.stderr
	var err error
	if b.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("browsertest: start node driver.mjs: %v", err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			b.lines <- bytes.Clone(sc.Bytes())
		}
		close(b.lines)
	}()
	t.Cleanup(b.close)
	var ready struct{ Version string }
	b.await(0, "launch", 2*time.Minute, &ready)
	b.version = ready.Version
	return b
}

// Version is Chromium's version, as the driver reports it.
func (b *Browser) Version() string { return b.version }

// Page opens a page of width×height CSS pixels in a context of its own
// (its own cookies and storage: two pages are two people).
func (b *Browser) Page(width, height int) *Page {
	b.t.Helper()
	b.mu.Lock()
	b.pages++
	p := &Page{b: b, name: "p" + strconv.Itoa(b.pages)}
	b.mu.Unlock()
	p.do("open", map[string]any{"width": width, "height": height}, nil)
	return p
}

// do sends one command and decodes its result into out (when not nil); an
// error from the driver fails the test with it.
func (b *Browser) do(op string, args map[string]any, out any) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	cmd := map[string]any{"id": b.nextID, "op": op}
	for k, v := range args {
		cmd[k] = v
	}
	line, err := json.Marshal(cmd)
	if err != nil {
		b.t.Fatalf("browsertest: %s: %v", op, err)
	}
	if _, err := b.stdin.Write(append(line, '\n')); err != nil {
		b.t.Fatalf("browsertest: %s: the driver is gone: %v\n%s", op, err, b.stderr)
	}
	b.await(b.nextID, op, Timeout+10*time.Second, out)
}

// await reads the driver's answer to command id.
func (b *Browser) await(id int, op string, wait time.Duration, out any) {
	b.t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case line, ok := <-b.lines:
		if !ok {
			_ = b.cmd.Wait()
			b.t.Fatalf("browsertest: %s: the driver exited: %v\n%s", op, b.cmd.ProcessState, b.stderr)
		}
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *string         `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			b.t.Fatalf("browsertest: %s: read the driver's answer: %v\n%s", op, err, line)
		}
		if msg.Error != nil {
			b.t.Fatalf("browsertest: %s: %s", op, *msg.Error)
		}
		if msg.ID != id {
			b.t.Fatalf("browsertest: %s: answer %d to command %d", op, msg.ID, id)
		}
		if out != nil {
			if err := json.Unmarshal(msg.Result, out); err != nil {
				b.t.Fatalf("browsertest: %s: %v\n%s", op, err, msg.Result)
			}
		}
	case <-timer.C:
		b.t.Fatalf("browsertest: %s: no answer within %s\n%s", op, wait, b.stderr)
	}
}

// close asks the driver to close Chromium and exit, and kills it when it
// does not within a few seconds.
func (b *Browser) close() {
	_, _ = b.stdin.Write([]byte(`{"op":"close"}` + "\n"))
	_ = b.stdin.Close()
	done := make(chan struct{})
	go func() {
		for range b.lines { // drain, so the reader goroutine ends
		}
		_ = b.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-done
	}
}

// install returns a directory holding js/<sub>'s packages installed
// (sdk/npmtest) and the name of its <stem>.mjs there.
func install(t testing.TB, sub, name, marker, stem string) (dir, script string) {
	t.Helper()
	files, err := fs.Sub(js, "js/"+sub)
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	dir = npmtest.Install(t, files, name, marker)
	body, err := fs.ReadFile(files, stem+".mjs")
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	return dir, npmtest.WriteScript(t, dir, stem, body)
}
