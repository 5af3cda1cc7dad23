package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/audit"
	boardmod "github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/modules/pacts"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// world is a real board (the board, pacts and audit modules on kerneltest's World,
// over real PostgreSQL, events on) with the Office, wanda and bram (Claude
// Code agents in web), and pact-channel built from this package.
type world struct {
	*kerneltest.World
	bin   string
	roots map[string]string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{World: kerneltest.New(t, kerneltest.Options{Events: true}, boardmod.New(), pacts.New(pacts.Options{}),
		audit.New()), // the Log's Admin API
		roots: map[string]string{}}
	w.Office()
	for _, a := range []string{"wanda", "bram"} {
		w.Agent("ana", kerneltest.AgentInput{ID: a, Client: "code", Projects: []string{"web"}, Delegations: ptr(3)})
		w.roots[a] = w.Root(a)
	}
	w.bin = filepath.Join(t.TempDir(), "pact-channel")
	out, err := exec.Command("go", "build", "-o", w.bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return w
}

func ptr[T any](v T) *T { return &v }

// as calls tool as agent with its root mandate.
func (w *world) as(agent, tool string, args map[string]any) map[string]any {
	w.T.Helper()
	args["mandate_id"] = w.roots[agent]
	return w.OK(agent, tool, args)
}

// pact starts a pact named name by wanda (prefix W) with bram invited (B)
// and joined, and returns its id.
func (w *world) pact(name string) string {
	w.T.Helper()
	id := w.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": name, "purpose": "Ship " + name,
		"rules": "Be brief.", "prefix": "W", "invite": []any{map[string]any{"key": "@bram", "prefix": "B"}}})["pact_id"].(string)
	w.as("bram", pacts.ToolJoin, map[string]any{"pact_id": id})
	return id
}

// post posts body in pact as wanda and returns its number.
func (w *world) post(pact, body string) string {
	w.T.Helper()
	return w.as("wanda", pacts.ToolPost, map[string]any{"pact_id": pact, "body": body})["number"].(string)
}

// env is pact-channel's environment for agent against url, plus more.
func (w *world) env(agent, url string, more ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.T.TempDir(), "PACT_URL=" + url,
		"PACT_TOKEN=" + w.Token(agent), "PACT_AGENT_ID=" + agent}
	return append(env, more...)
}

// proc is a running pact-channel spoken to as Claude Code speaks to it:
// JSON-RPC lines on its stdin and stdout.
type proc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	notes  chan map[string]any // params of notifications/claude/channel
	other  chan map[string]any // every other message
	stderr *logtest.Buffer
}

// start runs pact-channel with env, initializes it and sends
// notifications/initialized, then waits for its pact stream to open.
func (w *world) start(env []string) *proc {
	t := w.T
	t.Helper()
	p := &proc{cmd: exec.Command(w.bin), notes: make(chan map[string]any, 10000), other: make(chan map[string]any, 100),
		stderr: &logtest.Buffer{}}
	p.cmd.Env = env
	p.cmd.Stderr = p.stderr
	var err error
	p.in, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() {
		_ = p.in.Close()
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
			t.Errorf("pact-channel did not end when its stdin closed")
		}
	})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			if m["method"] == "notifications/claude/channel" {
				params := m["params"].(map[string]any)
				params["received_at"] = time.Now() // the test's own mark, for latencies
				p.notes <- params
			} else {
				p.other <- m
			}
		}
	}()
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	select {
	case m := <-p.other:
		require.NotNil(t, m["result"], "initialize: %v", m)
	case <-time.After(30 * time.Second):
		t.Fatalf("pact-channel did not answer initialize; its stderr:\n%s", p.stderr)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// On a board that is up the stream opens at the first try, within
	// milliseconds: a refusal fails now, and a stream that never says it
	// is open fails after 20 s, not after waitLog's minute.
	p.waitLogUnless(t, "the pact stream is open", 1, "the pact stream did not open", 20*time.Second)
	return p
}

func (p *proc) send(t testing.TB, line string) {
	t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(t, err)
}

// waitLog waits until pact-channel's stderr holds what n times.
func (p *proc) waitLog(t testing.TB, what string, n int) {
	t.Helper()
	p.waitLogUnless(t, what, n, "", time.Minute)
}

// waitLogUnless is waitLog that fails as soon as stderr holds unless (when
// not empty) before what has come n times, and after bound.
func (p *proc) waitLogUnless(t testing.TB, what string, n int, unless string, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		log := p.stderr.String()
		switch {
		case strings.Count(log, what) >= n:
			return
		case unless != "" && strings.Contains(log, unless):
			t.Fatalf("pact-channel logged %q before %q; its stderr:\n%s", unless, what, log)
		case time.Now().After(deadline):
			t.Fatalf("pact-channel never logged %q %d times; its stderr:\n%s", what, n, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// next is the next channel notification's params.
func (p *proc) next(t testing.TB) map[string]any {
	t.Helper()
	select {
	case n := <-p.notes:
		return n
	case <-time.After(30 * time.Second):
		t.Fatalf("no channel notification in 30 s; pact-channel's stderr:\n%s", p.stderr)
		return nil
	}
}

// none asserts no channel notification arrives within d.
func (p *proc) none(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case n := <-p.notes:
		t.Fatalf("an unexpected channel notification: %v", n)
	case <-time.After(d):
	}
}

func meta(n map[string]any) map[string]any { return n["meta"].(map[string]any) }

// proxy is a TCP proxy to the board that the test can cut: cut closes
// every open connection and refuses new ones until restore.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns []net.Conn
}

func newProxy(t testing.TB, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		b, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.conns = append(p.conns, c, b)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(b, c); _ = b.Close() }()
		go func() { _, _ = io.Copy(c, b); _ = c.Close() }()
	}
}

// cut drops every connection and refuses new ones.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// numbers are the message numbers W-001 … W-<n>.
func numbers(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("W-%03d", i))
	}
	return out
}
