package pluginhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// proc supervises one plugin: at most one process at a time, launched on
// demand or by the health checks, restarted with backoff after it dies.
type proc struct {
	h      *Host
	spec   Spec
	path   string
	logger hclog.Logger
	// launching is held (a one-slot semaphore) while a process starts, so
	// concurrent calls start one process, and a caller can give up waiting.
	launching chan struct{}

	mu      sync.Mutex
	client  *plugin.Client
	rpc     plugin.ClientProtocol
	iface   any // what the kind's Dispense returned
	pid     int
	started time.Time
	starts  int
	// failures counts start failures and deaths since the plugin last
	// answered a call or a health check; it sets the backoff.
	failures int
	nextTry  time.Time
	lastErr  error
}

func newProc(h *Host, s Spec, path string) *proc {
	return &proc{
		h: h, spec: s, path: path,
		logger:    h.logger.Named(s.Name),
		launching: make(chan struct{}, 1),
	}
}

// get returns the running plugin's interface, starting the process when
// there is none and the backoff allows. Errors are errs.Unavailable naming
// the plugin and the reason.
func (p *proc) get(ctx context.Context) (any, error) {
	for attempt := 0; ; attempt++ {
		if p.h.isClosed() {
			return nil, errs.E(errs.Unavailable, "plugin %s: the plugin host is shut down", p.spec.Name)
		}
		p.mu.Lock()
		p.reapLocked()
		if p.client != nil {
			v := p.iface
			p.mu.Unlock()
			return v, nil
		}
		if attempt > 0 || time.Now().Before(p.nextTry) {
			err := p.downErrorLocked()
			p.mu.Unlock()
			return nil, err
		}
		p.mu.Unlock()

		select {
		case p.launching <- struct{}{}:
		case <-ctx.Done():
			return nil, &errs.Error{Code: errs.Unavailable, Message: fmt.Sprintf("plugin %s: still starting", p.spec.Name), Err: ctx.Err()}
		}
		p.mu.Lock()
		if p.client == nil && !time.Now().Before(p.nextTry) {
			p.mu.Unlock()
			p.launch()
		} else {
			p.mu.Unlock()
		}
		<-p.launching
	}
}

// downErrorLocked says why the plugin is not running.
func (p *proc) downErrorLocked() error {
	msg := fmt.Sprintf("plugin %s is not running", p.spec.Name)
	if p.lastErr != nil {
		msg += ": " + p.lastErr.Error()
	}
	if wait := time.Until(p.nextTry); wait > 0 {
		msg += fmt.Sprintf("; next start attempt in %s", wait.Round(time.Millisecond))
	}
	return errs.E(errs.Unavailable, "%s", msg)
}

// tryStart launches the plugin if it is down and its backoff has passed,
// without waiting for a launch already under way.
func (p *proc) tryStart(context.Context) {
	select {
	case p.launching <- struct{}{}:
	default:
		return
	}
	defer func() { <-p.launching }()
	p.mu.Lock()
	p.reapLocked()
	due := p.client == nil && !time.Now().Before(p.nextTry)
	p.mu.Unlock()
	if due && !p.h.isClosed() {
		p.launch()
	}
}

// launch starts one process; the caller holds p.launching.
func (p *proc) launch() {
	client, rpc, iface, err := p.spawn()
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.failLocked(fmt.Errorf("failed to start: %w", err))
		p.logger.Error("plugin did not start", "plugin", p.spec.Name, "kind", p.spec.Kind, "binary", p.path,
			"error", err.Error(), "next_attempt_in", time.Until(p.nextTry).Round(time.Millisecond).String())
		return
	}
	if p.h.isClosed() { // Close ran while we were starting
		go kill(client, p.logger)
		return
	}
	p.client, p.rpc, p.iface = client, rpc, iface
	p.started = time.Now()
	p.starts++
	if rc := client.ReattachConfig(); rc != nil {
		p.pid = rc.Pid
	}
	p.logger.Info("plugin started", "plugin", p.spec.Name, "kind", p.spec.Kind, "binary", p.path,
		"pid", p.pid, "protocol", client.NegotiatedVersion(), "restarts", p.starts-1)
}

// spawn runs the binary and completes the handshake.
func (p *proc) spawn() (*plugin.Client, plugin.ClientProtocol, any, error) {
	if err := checkBinary(p.path); err != nil {
		return nil, nil, nil, err
	}
	cmd := exec.Command(p.path)
	cmd.Env = p.spec.environ(p.h.opts.Getenv)
	setProcAttr(cmd)
	var cfg *plugin.ClientConfig
	switch p.spec.Kind {
	case KindNotifier:
		cfg = notifier.ClientConfig(cmd)
	case KindCredential:
		cfg = credential.ClientConfig(cmd)
	case KindAuthIssuer:
		cfg = authissuer.ClientConfig(cmd)
	}
	cfg.SkipHostEnv = true
	cfg.Managed = true
	cfg.Logger = p.logger
	cfg.StartTimeout = p.h.opts.StartTimeout
	if p.spec.SHA256 != "" {
		sum, _ := hex.DecodeString(p.spec.SHA256) // checked by Spec.check
		cfg.SecureConfig = &plugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
	}
	client := plugin.NewClient(cfg)
	rpc, err := client.Client()
	if err != nil {
		kill(client, p.logger)
		if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
			actual, _ := fileSHA256(p.path)
			if p.spec.bundled {
				return nil, nil, nil, fmt.Errorf("refused: the sha256 of %s is %s but this pact-board was built with the pin %s; "+
					"rebuild the board and its plugins together with make build, or name the plugin in PACT_PLUGINS "+
					"with this sum if you trust it (pact-admin plugin-pin prints the entry)", p.path, actual, p.spec.SHA256)
			}
			return nil, nil, nil, fmt.Errorf("refused: the sha256 of %s is %s but PACT_PLUGINS pins %s; "+
				"install the pinned binary, or pin this one if you trust it", p.path, actual, p.spec.SHA256)
		}
		return nil, nil, nil, fmt.Errorf("%s: %w (is it a PACT %s plugin built with the SDK's Serve?)", p.path, err, p.spec.Kind)
	}
	var iface any
	switch p.spec.Kind {
	case KindNotifier:
		iface, err = notifier.Dispense(rpc)
	case KindCredential:
		iface, err = credential.Dispense(rpc)
	case KindAuthIssuer:
		iface, err = authissuer.Dispense(rpc)
	}
	if err != nil {
		kill(client, p.logger)
		return nil, nil, nil, fmt.Errorf("%s: %w", p.path, err)
	}
	return client, rpc, iface, nil
}

// checkBinary turns the usual installation mistakes into errors an
// operator can act on before go-plugin tries to run the file.
func checkBinary(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("binary %s does not exist (build it with make plugins, or fix \"binary\" in PACT_PLUGINS or PACT_PLUGIN_DIR)", path)
	case err != nil:
		return fmt.Errorf("binary %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("binary %s is a directory", path)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("binary %s is not executable (chmod +x)", path)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// failLocked records a start failure or a death and sets the backoff: the
// first failure after a healthy run may retry at once, then
// BackoffMin doubling up to BackoffMax.
func (p *proc) failLocked(err error) {
	p.lastErr = err
	var wait time.Duration
	if p.failures > 0 {
		wait = min(p.h.opts.BackoffMin<<min(p.failures-1, 20), p.h.opts.BackoffMax)
	}
	p.failures++
	p.nextTry = time.Now().Add(wait)
}

// reapLocked notices a process that exited and forgets it.
func (p *proc) reapLocked() {
	if p.client == nil || !p.client.Exited() {
		return
	}
	p.dropLocked(fmt.Errorf("the process (pid %d) exited after %s", p.pid, time.Since(p.started).Round(time.Millisecond)))
}

// dropLocked forgets the running process, recording why it is gone.
func (p *proc) dropLocked(why error) {
	client := p.client
	p.client, p.rpc, p.iface = nil, nil, nil
	p.failLocked(why)
	p.logger.Error("plugin down; it will be restarted", "plugin", p.spec.Name, "reason", why.Error(),
		"next_attempt_in", time.Until(p.nextTry).Round(time.Millisecond).String())
	go kill(client, p.logger) // reaps it, or kills a process that stopped answering
}

// healthy records a successful call or health check.
func (p *proc) healthy() {
	p.mu.Lock()
	p.failures = 0
	p.mu.Unlock()
}

// check is one health check: reap a dead process, ping a live one (a
// plugin that does not answer within CallTimeout is killed and restarted),
// start one that is due.
func (p *proc) check(ctx context.Context) {
	p.mu.Lock()
	p.reapLocked()
	client, rpc := p.client, p.rpc
	p.mu.Unlock()
	if client == nil {
		p.tryStart(ctx)
		return
	}
	pinged := make(chan error, 1)
	go func() { pinged <- rpc.Ping() }()
	var err error
	select {
	case err = <-pinged:
	case <-time.After(p.h.opts.CallTimeout):
		err = fmt.Errorf("no answer within %s", p.h.opts.CallTimeout)
	case <-ctx.Done():
		return
	}
	if err == nil {
		p.healthy()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != client {
		return
	}
	// A process that does not answer its health check would not answer a
	// graceful shutdown either.
	if proc, ferr := os.FindProcess(p.pid); ferr == nil && p.pid > 0 {
		_ = proc.Kill()
	}
	p.dropLocked(fmt.Errorf("health check failed: %w", err))
}

// noteCallFailure is told about a call that failed as Unavailable: when the
// process is gone, forget it now so the next call restarts it.
func (p *proc) noteCallFailure() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reapLocked()
}

// close kills the process, if any.
func (p *proc) close() {
	// Wait for a launch under way, so its process is not left behind.
	p.launching <- struct{}{}
	defer func() { <-p.launching }()
	p.mu.Lock()
	client := p.client
	p.client, p.rpc, p.iface = nil, nil, nil
	p.mu.Unlock()
	if client != nil {
		kill(client, p.logger)
	}
}

func (p *proc) status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Status{Name: p.spec.Name, Kind: p.spec.Kind, Binary: p.path, Starts: p.starts}
	if p.client != nil && !p.client.Exited() {
		s.Running, s.PID = true, p.pid
	}
	if p.lastErr != nil {
		s.LastError = p.lastErr.Error()
	}
	return s
}

// kill ends a plugin process: go-plugin's graceful shutdown, then, if that
// hangs (a frozen process does not answer the shutdown call), SIGKILL.
func kill(c *plugin.Client, logger hclog.Logger) {
	if c == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		c.Kill()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-time.After(5 * time.Second):
	}
	if rc := c.ReattachConfig(); rc != nil && rc.Pid > 0 {
		logger.Warn("plugin did not stop; killing it", "pid", rc.Pid)
		if proc, err := os.FindProcess(rc.Pid); err == nil {
			_ = proc.Kill()
		}
	}
	<-done
}
