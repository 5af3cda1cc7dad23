package pluginhost_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// newHost runs specs with short timeouts, closed when the test ends; its
// logs go to the returned buffer.
func newHost(t *testing.T, specs []pluginhost.Spec, tune func(*pluginhost.Options)) (*pluginhost.Host, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	opts := &pluginhost.Options{
		Dir:            binDir,
		Logger:         hclog.New(&hclog.LoggerOptions{Name: "board", Output: logs, Level: hclog.Debug}),
		CallTimeout:    5 * time.Second,
		StartTimeout:   5 * time.Second,
		HealthInterval: time.Hour,
		BackoffMin:     200 * time.Millisecond,
		BackoffMax:     time.Second,
	}
	if tune != nil {
		tune(opts)
	}
	h, err := pluginhost.New(specs, opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	return h, logs
}

func helloSpec(t *testing.T, file string) pluginhost.Spec {
	return pluginhost.Spec{
		Name: "hello", Kind: pluginhost.KindNotifier, Binary: helloBin,
		SHA256: sha256Of(t, filepath.Join(binDir, helloBin)),
		Env:    map[string]string{"HELLO_FILE": file},
	}
}

func testSpec() pluginhost.Spec {
	return pluginhost.Spec{Name: "test", Kind: pluginhost.KindNotifier, Binary: testBin}
}

// readLines returns the notifications notifier-hello appended to file.
func readLines(t *testing.T, file string) []notifier.Notification {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var out []notifier.Notification
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var n notifier.Notification
		require.NoError(t, json.Unmarshal(sc.Bytes(), &n))
		out = append(out, n)
	}
	require.NoError(t, sc.Err())
	return out
}

// signalPlugin sends sig to the plugin process s reports, after checking
// that its PID names a child of this test: a zero PID would signal the
// test's own process group.
func signalPlugin(t *testing.T, s pluginhost.Status, sig syscall.Signal) {
	t.Helper()
	require.Positive(t, s.PID, "the status of a running plugin names its process")
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.PID))
	if err == nil { // Linux: "pid (comm) state ppid ..."
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		require.Equal(t, strconv.Itoa(os.Getpid()), fields[1], "PID %d is not a child of the host", s.PID)
	}
	require.NoError(t, syscall.Kill(s.PID, sig))
}

// allThreadsStopped says whether every thread of pid is stopped (state T
// in /proc/<pid>/task/*/stat); true where there is no /proc to ask.
func allThreadsStopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		_, statErr := os.Stat("/proc/self")
		return statErr != nil
	}
	for _, f := range tasks {
		stat, err := os.ReadFile(f)
		if err != nil {
			return false
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) == 0 || (fields[0] != "T" && fields[0] != "t") {
			return false
		}
	}
	return true
}

func status(h *pluginhost.Host, name string) pluginhost.Status {
	for _, s := range h.Status() {
		if s.Name == name {
			return s
		}
	}
	return pluginhost.Status{}
}

// The example third-party notifier, built from its own module, runs as a
// subprocess through the host (handshake, AutoMTLS, the pinned checksum).
func TestHelloEndToEnd(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notifications.jsonl")
	h, logs := newHost(t, []pluginhost.Spec{helloSpec(t, file)}, nil)
	h.Start()
	require.True(t, status(h, "hello").Running, logs.String())
	require.Equal(t, []string{"hello"}, h.Names(pluginhost.KindNotifier))

	n, err := h.Notifier("hello")
	require.NoError(t, err)
	ctx := context.Background()
	caps, err := n.Capabilities(ctx)
	require.NoError(t, err)
	require.Equal(t, "notifier-hello", caps.Name)

	d, err := n.PrepareDestination(ctx, notifier.Destination{URL: "file:"})
	require.NoError(t, err)
	require.Equal(t, "file:", d.URL)

	sent := notifier.Notification{
		ID: "n1", IdempotencyKey: "n1-key", Kind: "question", Title: "Agent a1 asks", Detail: "Which branch?",
		OrgID: "default", ProjectID: "web", TaskID: "t1", AgentID: "a1",
		Links:     []notifier.Link{{Label: "Open task", URL: "https://ui.test/tasks/t1"}},
		CreatedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
	}
	rc, err := n.Deliver(ctx, *d, sent)
	require.NoError(t, err)
	require.Equal(t, 200, rc.Status)
	require.Equal(t, []notifier.Notification{sent}, readLines(t, file))
	require.Contains(t, logs.String(), "board.plugin.hello: plugin started")
}

// A plugin killed mid-run is noticed and restarted; the next call succeeds.
func TestRestartAfterKill(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notifications.jsonl")
	h, logs := newHost(t, []pluginhost.Spec{helloSpec(t, file)}, nil)
	n, err := h.Notifier("hello")
	require.NoError(t, err)
	ctx := context.Background()
	_, err = n.Deliver(ctx, notifier.Destination{}, notifier.Notification{ID: "n1"})
	require.NoError(t, err)
	before := status(h, "hello")
	require.True(t, before.Running)

	signalPlugin(t, before, syscall.SIGKILL)
	require.Eventually(t, func() bool { return !status(h, "hello").Running }, 5*time.Second, 10*time.Millisecond)

	_, err = n.Deliver(ctx, notifier.Destination{}, notifier.Notification{ID: "n2"})
	require.NoError(t, err, logs.String())
	after := status(h, "hello")
	require.True(t, after.Running)
	require.Equal(t, 2, after.Starts)
	require.NotEqual(t, before.PID, after.PID)
	require.Contains(t, after.LastError, "exited")
	require.Contains(t, logs.String(), "plugin down; it will be restarted")

	lines := readLines(t, file)
	require.Len(t, lines, 2)
	require.Equal(t, "n2", lines[1].ID)
}

// A plugin that dies in the middle of a delivery costs that delivery an
// Unavailable error (the outbox retries it), never the board; the next
// delivery goes through a restarted process.
func TestCrashMidDelivery(t *testing.T) {
	h, _ := newHost(t, []pluginhost.Spec{testSpec()}, nil)
	n, err := h.Notifier("test")
	require.NoError(t, err)
	ctx := context.Background()

	_, err = n.Deliver(ctx, notifier.Destination{Options: map[string]string{"mode": "crash"}}, notifier.Notification{IdempotencyKey: "k1"})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "plugin test:")

	require.Eventually(t, func() bool {
		rc, err := n.Deliver(ctx, notifier.Destination{}, notifier.Notification{IdempotencyKey: "k1"})
		return err == nil && rc.Detail == "k1"
	}, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, 2, status(h, "test").Starts)
}

// The health checks restart a dead plugin without waiting for a call.
func TestHealthCheckRestarts(t *testing.T) {
	h, _ := newHost(t, []pluginhost.Spec{testSpec()}, func(o *pluginhost.Options) { o.HealthInterval = 50 * time.Millisecond })
	h.Start()
	first := status(h, "test")
	require.True(t, first.Running)
	signalPlugin(t, first, syscall.SIGKILL)
	require.Eventually(t, func() bool {
		s := status(h, "test")
		return s.Running && s.Starts == 2 && s.PID != first.PID
	}, 5*time.Second, 20*time.Millisecond)
}

// A call that hangs ends at the host's deadline as Unavailable; the plugin
// keeps serving other calls.
func TestCallDeadline(t *testing.T) {
	h, logs := newHost(t, []pluginhost.Spec{testSpec()}, func(o *pluginhost.Options) { o.CallTimeout = 300 * time.Millisecond })
	n, err := h.Notifier("test")
	require.NoError(t, err)
	ctx := context.Background()
	// Start it outside the measured call. On a loaded machine the first
	// answer can itself take longer than the short deadline, so retry it.
	require.Eventually(t, func() bool {
		_, err := n.Capabilities(ctx)
		return err == nil
	}, 10*time.Second, 50*time.Millisecond)

	start := time.Now()
	_, err = n.Deliver(ctx, notifier.Destination{Options: map[string]string{"mode": "hang"}}, notifier.Notification{})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.ErrorContains(t, err, "plugin test: notifier.Deliver did not answer within 300ms")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 3*time.Second)
	require.Contains(t, logs.String(), "plugin call failed")

	rc, err := n.Deliver(ctx, notifier.Destination{}, notifier.Notification{IdempotencyKey: "k2"})
	require.NoError(t, err)
	require.Equal(t, "k2", rc.Detail)
	require.Equal(t, 1, status(h, "test").Starts)
}

// The plugin's refusals reach the board with their code and message.
func TestRefusalCrossesTheHost(t *testing.T) {
	h, _ := newHost(t, []pluginhost.Spec{testSpec()}, nil)
	n, err := h.Notifier("test")
	require.NoError(t, err)
	_, err = n.PrepareDestination(context.Background(), notifier.Destination{})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Equal(t, "a destination needs a URL", errs.Public(err).Message)
}

// The plugin sees only the env of its catalog entry, never the board's.
func TestPluginEnvironment(t *testing.T) {
	t.Setenv("PACT_TEST_BOARD_SECRET", "s3cret")
	spec := testSpec()
	spec.Env = map[string]string{"VISIBLE": "yes", "FROM_BOARD": "${PACT_TEST_BOARD_SECRET}"}
	h, _ := newHost(t, []pluginhost.Spec{spec}, nil)
	n, err := h.Notifier("test")
	require.NoError(t, err)
	env := func(name string) string {
		rc, err := n.Deliver(context.Background(), notifier.Destination{Options: map[string]string{"mode": "env", "var": name}}, notifier.Notification{})
		require.NoError(t, err)
		return rc.Detail
	}
	require.Equal(t, "yes", env("VISIBLE"))
	require.Equal(t, "s3cret", env("FROM_BOARD"))
	require.Equal(t, "<unset>", env("PACT_TEST_BOARD_SECRET"))
	require.Equal(t, "<unset>", env("PATH"))
}

// A binary whose SHA-256 is not the pinned one never runs.
func TestChecksumMismatchRefused(t *testing.T) {
	actual := sha256Of(t, filepath.Join(binDir, helloBin))
	for _, kind := range []pluginhost.Kind{pluginhost.KindNotifier, pluginhost.KindCredential} {
		t.Run(string(kind), func(t *testing.T) {
			spec := pluginhost.Spec{Name: "pinned", Kind: kind, Binary: helloBin, SHA256: sum}
			h, logs := newHost(t, []pluginhost.Spec{spec}, nil)
			h.Start() // logs the refusal, does not fail
			s := status(h, "pinned")
			require.False(t, s.Running)
			require.Equal(t, 0, s.Starts)
			require.Contains(t, s.LastError, "refused: the sha256 of")
			require.Contains(t, logs.String(), actual, "the log names the binary's actual sum")
			require.Contains(t, logs.String(), "[ERROR] board.plugin.pinned: plugin did not start")

			var err error
			if kind == pluginhost.KindNotifier {
				n, _ := h.Notifier("pinned")
				_, err = n.Capabilities(context.Background())
			} else {
				c, _ := h.Credential("pinned")
				_, err = c.Format(context.Background())
			}
			require.Equal(t, errs.Unavailable, errs.CodeOf(err))
			require.ErrorContains(t, err, "PACT_PLUGINS pins "+sum)
		})
	}
}

// The pin holds on every start, not only the first (PLUGIN-002): a binary
// swapped on disk while the pinned plugin runs is refused when the host
// restarts the killed process, and the new binary never runs.
func TestChecksumCheckedOnEveryRestart(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(binDir, helloBin), filepath.Join(dir, helloBin))
	file := filepath.Join(t.TempDir(), "notifications.jsonl")
	h, logs := newHost(t, []pluginhost.Spec{helloSpec(t, file)}, func(o *pluginhost.Options) { o.Dir = dir })
	n, err := h.Notifier("hello")
	require.NoError(t, err)
	ctx := context.Background()
	_, err = n.Deliver(ctx, notifier.Destination{}, notifier.Notification{ID: "n1"})
	require.NoError(t, err, logs.String())
	before := status(h, "hello")
	require.True(t, before.Running)
	require.Equal(t, 1, before.Starts)

	// Another working plugin takes the pinned binary's place (a rename, as
	// an installer would do it, since the running file cannot be written).
	swapped := filepath.Join(dir, helloBin+".new")
	copyFile(t, filepath.Join(binDir, testBin), swapped)
	require.NoError(t, os.Rename(swapped, filepath.Join(dir, helloBin)))
	signalPlugin(t, before, syscall.SIGKILL)
	require.Eventually(t, func() bool { return !status(h, "hello").Running }, 5*time.Second, 10*time.Millisecond)

	_, err = n.Deliver(ctx, notifier.Destination{}, notifier.Notification{ID: "n2"})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "the swapped binary must not serve the call")
	require.ErrorContains(t, err, "PACT_PLUGINS pins "+sha256Of(t, filepath.Join(binDir, helloBin)))
	after := status(h, "hello")
	require.False(t, after.Running)
	require.Equal(t, 1, after.Starts, "the swapped binary never started")
	require.Contains(t, after.LastError, "refused: the sha256 of")
	require.Contains(t, logs.String(), sha256Of(t, filepath.Join(binDir, testBin)), "the log names the swapped binary's sum")
	require.Len(t, readLines(t, file), 1)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o755))
}

func TestBadBinaries(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string, mode os.FileMode) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), mode))
	}
	script("garbage", "echo 'hello, I am not a plugin'; exec sleep 30", 0o755)
	script("hang", "exec sleep 30", 0o755)
	script("exits", "exit 2", 0o755)
	script("noexec", "exit 0", 0o644)
	for _, tt := range []struct{ name, binary, says string }{
		{"Missing", filepath.Join(dir, "nope"), "does not exist (build it with make plugins"},
		{"NotExecutable", filepath.Join(dir, "noexec"), "is not executable"},
		{"Garbage", filepath.Join(dir, "garbage"), "Unrecognized remote plugin message: hello, I am not a plugin"},
		{"Hang", filepath.Join(dir, "hang"), "timeout while waiting for plugin to start"},
		{"Exits", filepath.Join(dir, "exits"), "Failed to read any lines from plugin's stdout"},
		{"WrongKind", helloBin, "does not serve the authissuer kind"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kind := pluginhost.KindNotifier
			spec := pluginhost.Spec{Name: "bad", Kind: kind, Binary: tt.binary}
			if tt.name == "WrongKind" {
				spec.Kind, spec.SHA256 = pluginhost.KindAuthIssuer, sha256Of(t, filepath.Join(binDir, helloBin))
			}
			h, logs := newHost(t, []pluginhost.Spec{spec}, func(o *pluginhost.Options) { o.StartTimeout = 500 * time.Millisecond })
			var err error
			if spec.Kind == pluginhost.KindAuthIssuer {
				is, _ := h.Issuer("bad")
				_, err = is.Metadata(context.Background())
			} else {
				n, _ := h.Notifier("bad")
				_, err = n.Capabilities(context.Background())
			}
			require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)
			require.ErrorContains(t, err, tt.says)
			require.Contains(t, logs.String(), tt.says)
			require.False(t, status(h, "bad").Running)

			// Within the backoff the host does not try again.
			if spec.Kind == pluginhost.KindNotifier {
				n, _ := h.Notifier("bad")
				_, err = n.Capabilities(context.Background())
				require.ErrorContains(t, err, "next start attempt in")
			}
		})
	}
}

func TestLookup(t *testing.T) {
	h, _ := newHost(t, []pluginhost.Spec{testSpec()}, nil)
	_, err := h.Notifier("nope")
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	_, err = h.Credential("test")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, `plugin "test" is a notifier plugin, not a credential`)
	_, err = h.Issuer("test")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}

// Close ends a plugin that does not answer its graceful shutdown (frozen
// with SIGSTOP) with SIGKILL, 5 s later, instead of waiting for it forever.
func TestCloseKillsAFrozenPlugin(t *testing.T) {
	h, logs := newHost(t, []pluginhost.Spec{testSpec()}, nil)
	h.Start()
	s := status(h, "test")
	require.True(t, s.Running)
	// One call first, so the connection is up before the plugin freezes:
	// the shutdown request then waits on a plugin that does not answer.
	// Without it, on a loaded machine, the request could fail at once on a
	// connection not yet made, and go-plugin kill the process itself.
	n, err := h.Notifier("test")
	require.NoError(t, err)
	_, err = n.Capabilities(context.Background())
	require.NoError(t, err)
	signalPlugin(t, s, syscall.SIGSTOP)
	t.Cleanup(func() { _ = syscall.Kill(s.PID, syscall.SIGKILL) })
	// A process stops thread by thread; on a loaded machine one of the
	// plugin's could still answer the shutdown request unless every one
	// has stopped first.
	require.Eventually(t, func() bool { return allThreadsStopped(s.PID) }, 10*time.Second, 5*time.Millisecond,
		"the plugin (pid %d) stops on SIGSTOP", s.PID)

	closed := make(chan struct{})
	go func() { _ = h.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatalf("Close still waits for the frozen plugin (pid %d) after 30 s", s.PID)
	}
	require.True(t, errors.Is(syscall.Kill(s.PID, 0), syscall.ESRCH), "the frozen plugin (pid %d) outlived Close", s.PID)
	require.Contains(t, logs.String(), fmt.Sprintf("plugin did not stop; killing it: pid=%d", s.PID))
}

// Close kills every plugin; later calls are Unavailable.
func TestCloseKillsPlugins(t *testing.T) {
	file := filepath.Join(t.TempDir(), "n.jsonl")
	h, logs := newHost(t, []pluginhost.Spec{helloSpec(t, file), testSpec()}, nil)
	h.Start()
	var pids []int
	for _, s := range h.Status() {
		require.True(t, s.Running)
		pids = append(pids, s.PID)
	}
	require.NoError(t, h.Close())
	for _, pid := range pids {
		require.Eventually(t, func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }, 5*time.Second, 10*time.Millisecond)
	}
	require.NotContains(t, logs.String(), "plugin did not stop", "a plugin that answers is shut down gracefully, not killed")
	n, err := h.Notifier("test")
	require.NoError(t, err)
	_, err = n.Capabilities(context.Background())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.ErrorContains(t, err, "shut down")
}

// A plugin that stops answering (here: stopped with SIGSTOP) fails its
// health check, is killed and replaced.
func TestHealthCheckReplacesFrozenPlugin(t *testing.T) {
	h, logs := newHost(t, []pluginhost.Spec{testSpec()}, func(o *pluginhost.Options) {
		o.HealthInterval = 50 * time.Millisecond
		o.CallTimeout = 300 * time.Millisecond
	})
	h.Start()
	first := status(h, "test")
	require.True(t, first.Running)
	signalPlugin(t, first, syscall.SIGSTOP)
	t.Cleanup(func() { _ = syscall.Kill(first.PID, syscall.SIGKILL) })
	require.Eventually(t, func() bool {
		s := status(h, "test")
		return s.Running && s.Starts == 2 && s.PID != first.PID
	}, 10*time.Second, 20*time.Millisecond)
	require.Contains(t, logs.String(), "health check failed: no answer within 300ms")
	// The health check kills it at once: the graceful shutdown a dropped
	// process gets would fall back to SIGKILL only after 2 s or more.
	require.Eventually(t, func() bool { return errors.Is(syscall.Kill(first.PID, 0), syscall.ESRCH) }, time.Second, 10*time.Millisecond)

	n, err := h.Notifier("test")
	require.NoError(t, err)
	_, err = n.Capabilities(context.Background())
	require.NoError(t, err)
}

// Each plugin call is timed under its outcome: ok, or the error's code.
func TestPluginCallsAreTimedByOutcome(t *testing.T) {
	m := metrics.New()
	h, _ := newHost(t, []pluginhost.Spec{testSpec()}, func(o *pluginhost.Options) { o.Metrics = m })
	n, err := h.Notifier("test")
	require.NoError(t, err)
	_, err = n.Capabilities(context.Background())
	require.NoError(t, err)
	_, err = n.PrepareDestination(context.Background(), notifier.Destination{})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	got := map[string]uint64{}
	for _, f := range families {
		if f.GetName() != "pact_plugin_call_duration_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			got[labels["method"]+"="+labels["outcome"]] += s.GetHistogram().GetSampleCount()
		}
	}
	require.Equal(t, uint64(1), got["notifier.PrepareDestination=invalid_request"], "%v", got)
	require.Zero(t, got["notifier.PrepareDestination=ok"], "%v", got)
	for k, v := range got {
		if strings.HasPrefix(k, "notifier.Capabilities=") {
			require.Equal(t, "notifier.Capabilities=ok", k)
			require.NotZero(t, v)
		}
	}
}

// After a failed start the first retry is immediate; each failure after
// that waits BackoffMin, then twice as long, up to BackoffMax.
func TestBackoffDoublesFromTheMinimum(t *testing.T) {
	spec := pluginhost.Spec{Name: "gone", Kind: pluginhost.KindNotifier, Binary: filepath.Join(t.TempDir(), "nope")}
	h, _ := newHost(t, []pluginhost.Spec{spec}, func(o *pluginhost.Options) {
		o.BackoffMin, o.BackoffMax = 200*time.Millisecond, 700*time.Millisecond
	})
	n, err := h.Notifier("gone")
	require.NoError(t, err)
	capabilities := func() error { _, err := n.Capabilities(context.Background()); return err }
	// nextWait reads the wait the refusal names ("next start attempt in
	// 200ms"), zero when it names none.
	nextWait := func(err error) time.Duration {
		require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)
		_, after, found := strings.Cut(err.Error(), "next start attempt in ")
		if !found {
			return 0
		}
		d, perr := time.ParseDuration(after)
		require.NoError(t, perr, "%v", err)
		return d
	}

	require.Zero(t, nextWait(capabilities()), "the first failure may be retried at once")
	for _, want := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond} {
		wait := nextWait(capabilities())
		require.LessOrEqual(t, wait, want)
		require.Greater(t, wait, want/2, "the wait after this failure is %s", want)
		time.Sleep(wait + 20*time.Millisecond)
	}
}
