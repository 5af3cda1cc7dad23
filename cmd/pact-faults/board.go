package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"
)

// board is one pact-board process the harness runs, kills and restarts. It
// keeps its port across restarts, so a client that comes back to it finds
// the same URL, as it would behind a fixed address.
type board struct {
	name string
	bin  string
	args []string
	env  map[string]string
	port int
	url  string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// newBoard picks a free loopback port and describes the process; start
// runs it. env is added to the board's variables (PORT, HOST and
// PACT_PUBLIC_URL are set here: MCP refuses a Host other than the public URL's).
func newBoard(name, bin, logPath string, env map[string]string, args ...string) (*board, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	all := map[string]string{"HOST": "127.0.0.1", "PORT": fmt.Sprint(port), "PACT_PUBLIC_URL": url,
		"PACT_LOG_LEVEL": "warn"}
	for k, v := range env {
		all[k] = v
	}
	return &board{name: name, bin: bin, args: args, env: all, port: port, url: url, log: logPath}, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs the process with only the variables given (plus PATH and
// HOME, which finding PostgreSQL's binaries needs), its output appended to
// its log file, and waits for /readyz.
func (b *board) start(ctx context.Context) error {
	logf, err := os.OpenFile(b.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(b.bin, b.args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	keys := make([]string, 0, len(b.env))
	for k := range b.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+b.env[k])
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	// A harness that dies takes its boards with it: no stray process keeps
	// a port or the database.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", b.name, err)
	}
	b.cmd, b.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(b.done)
	return b.waitReady(ctx, 90*time.Second)
}

// waitReady polls /readyz until it answers 200, the process exits, or the
// time runs out.
func (b *board) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	hc := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url+"/readyz", nil)
		if res, err := hc.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-b.done:
			return fmt.Errorf("%s exited before it was ready; see %s", b.name, b.log)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not ready within %s; see %s", b.name, limit, b.log)
		}
	}
}

// kill sends SIGKILL: the process gets no chance to finish anything.
func (b *board) kill() error { return b.signal(syscall.SIGKILL, 10*time.Second) }

// stop sends SIGTERM and waits for the board's own clean shutdown.
func (b *board) stop() error { return b.signal(syscall.SIGTERM, 60*time.Second) }

func (b *board) signal(sig syscall.Signal, wait time.Duration) error {
	if b.cmd == nil {
		return nil
	}
	select {
	case <-b.done:
		b.cmd = nil
		return nil
	default:
	}
	if err := b.cmd.Process.Signal(sig); err != nil {
		return err
	}
	return b.exited(wait, sig.String())
}

// term sends SIGTERM and returns at once: the board drains while the
// caller watches; exited then waits for it to end.
func (b *board) term() error {
	if b.cmd == nil {
		return fmt.Errorf("%s is not running", b.name)
	}
	return b.cmd.Process.Signal(syscall.SIGTERM)
}

// exited waits for the process to end, and kills it past wait.
func (b *board) exited(wait time.Duration, what string) error {
	select {
	case <-b.done:
		b.cmd = nil
		return nil
	case <-time.After(wait):
		_ = b.cmd.Process.Kill()
		<-b.done
		b.cmd = nil
		return fmt.Errorf("%s did not exit within %s of %s", b.name, wait, what)
	}
}
