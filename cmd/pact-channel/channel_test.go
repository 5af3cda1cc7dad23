package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// A pact message reaches the channel as notifications/claude/channel: the
// first 400 characters, and meta naming the pact, the message's number,
// its author and the exact get_pact call that reads it whole, which works.
// pact-channel set the agent's delivery to mode channel itself, once, and
// the Log shows people the mode.
func TestAPactMessageReachesTheChannelWithTheCallThatReadsIt(t *testing.T) {
	w := newWorld(t)
	id := w.pact("Launch")
	p := w.start(w.env("bram", w.URL))

	body := "Copy is ready: " + strings.Repeat("é", 500)
	require.Equal(t, "W-001", w.post(id, body))
	n := p.next(t)
	require.Equal(t, string([]rune(body)[:400]), n["content"], "the first 400 characters")
	m := meta(n)
	require.Equal(t, "pact", m["about"])
	require.Equal(t, id, m["pact_id"])
	require.Equal(t, "W-001", m["message_no"])
	require.Equal(t, "message", m["kind"])
	require.Equal(t, "agent:wanda", m["from"])
	require.NotContains(t, m, "source", "the <channel> tag's source is the server's name, set by Claude Code")
	for k, v := range m {
		require.Regexp(t, `^[A-Za-z0-9_]+$`, k, "meta keys are identifiers")
		require.IsType(t, "", v, "meta values are strings")
	}

	tool, args, ok := strings.Cut(m["read_with"].(string), " ")
	require.True(t, ok, m["read_with"])
	require.Equal(t, pacts.ToolGet, tool)
	var in map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &in))
	require.Equal(t, w.roots["bram"], in["mandate_id"])
	got := w.OK("bram", tool, in)
	msgs := got["messages"].([]any)
	require.Equal(t, body, msgs[0].(map[string]any)["body"], "read_with reads it whole")

	var mode string
	require.NoError(t, w.DB.NewRaw(`SELECT mode FROM pact_delivery WHERE agent_id = 'bram'`).Scan(context.Background(), &mode))
	require.Equal(t, pacts.ModeChannel, mode)
	// People see how the agent listens: the Log names the mode.
	r := w.Admin("ana", "GET", "/entries?agent=bram&action=set_pact_delivery", "")
	require.Equal(t, 200, r.Status, r.Raw)
	entries := r.Body["entries"].([]any)
	require.Len(t, entries, 1, "set once, at start: %s", r.Raw)
	require.Equal(t, pacts.ModeChannel, entries[0].(map[string]any)["payload"].(map[string]any)["mode"], r.Raw)
}

// A dropped stream resumes with Last-Event-ID: every message arrives
// exactly once and in order, those posted while the connection was down
// included (CHAN-001).
func TestADroppedStreamResumesWithNothingLostOrDoubled(t *testing.T) {
	w := newWorld(t)
	id := w.pact("Launch")
	u, err := url.Parse(w.URL)
	require.NoError(t, err)
	px := newProxy(t, u.Host)
	p := w.start(w.env("bram", px.URL()))

	for i := 1; i <= 4; i++ {
		w.post(id, "before the cut")
	}
	// The first of them has surely arrived before the cut; the others may
	// or may not have.
	require.Equal(t, "W-001", meta(p.next(t))["message_no"])
	px.cut()
	for i := 5; i <= 8; i++ {
		w.post(id, "while the stream is down")
	}
	px.restore()
	p.waitLog(t, "the pact stream is open", 2)
	for i := 9; i <= 12; i++ {
		w.post(id, "after the cut")
	}
	// Up to the last message posted, which is the last to arrive when none
	// is lost or doubled: a stream that lost some gets there early, and
	// fails now rather than waiting for messages that never come.
	var got []string
	for len(got) < 11 && (len(got) == 0 || got[len(got)-1] != "W-012") {
		got = append(got, meta(p.next(t))["message_no"].(string))
	}
	require.Equal(t, numbers(2, 12), got, "each message once, in order")
	p.none(t, 2*time.Second)
	require.Contains(t, p.stderr.String(), "the pact stream dropped; resuming")
}

// PACT_PACTS follows only the pacts it names.
func TestPactPactsFollowsOnlyThePactsItNames(t *testing.T) {
	w := newWorld(t)
	other, followed := w.pact("Other"), w.pact("Followed")
	p := w.start(w.env("bram", w.URL, "PACT_PACTS="+followed))
	w.post(other, "not for the channel")
	w.post(followed, "for the channel")
	n := p.next(t)
	require.Equal(t, followed, meta(n)["pact_id"])
	require.Equal(t, "for the channel", n["content"])
	p.none(t, time.Second)
}

// A task delegated to the agent reaches the channel once, with the call
// that reads it; so does a message to the agent on a task.
func TestATaskDelegatedToTheAgentReachesTheChannelOnce(t *testing.T) {
	w := newWorld(t)
	p := w.start(w.env("bram", w.URL))
	task := w.as("wanda", "pact_post", map[string]any{"project_id": "web", "title": "Review the copy",
		"body": "Read it and say what is wrong.", "delegate_to": "bram"})["task_id"].(string)
	n := p.next(t)
	m := meta(n)
	require.Equal(t, "task", m["about"])
	require.Equal(t, task, m["task_id"])
	require.Equal(t, "Review the copy\n\nRead it and say what is wrong.", n["content"])
	require.True(t, strings.HasPrefix(m["read_with"].(string), "pact_list "), m["read_with"])

	w.as("wanda", "pact_message", map[string]any{"task_id": task, "to": "bram", "body": "The second paragraph matters most."})
	n = p.next(t)
	require.Equal(t, "task_message", meta(n)["about"])
	require.Equal(t, task, meta(n)["task_id"])
	require.Equal(t, "The second paragraph matters most.", n["content"])
	p.none(t, 3*time.Second)
}

// The token never comes from the command line: pact-channel takes no
// arguments, and without a token anywhere it fails with one line saying
// what to set.
func TestWithoutATokenPactChannelFailsWithOneLine(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	run := func(env []string, args ...string) (string, int) {
		cmd := exec.Command(w.bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		}
		return string(out), code
	}
	out, code := run([]string{"PACT_URL=" + w.URL, "PACT_AGENT_ID=bram", "PACT_HOOK_DIR=" + dir})
	require.Equal(t, 2, code)
	require.Equal(t, 1, strings.Count(out, "\n"), out)
	require.Contains(t, out, "PACT_TOKEN")

	out, code = run([]string{"PACT_URL=" + w.URL, "PACT_HOOK_DIR=" + dir}, "--token", w.Token("bram"))
	require.Equal(t, 2, code)
	require.Contains(t, out, "takes no arguments")

	// The env file pact-connect writes completes what the environment lacks.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bram.env"), []byte("PACT_URL='"+w.URL+"'\nPACT_TOKEN='"+w.Token("bram")+"'\n"), 0o600))
	out, code = run([]string{"PACT_HOOK_DIR=" + dir}, "--help")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "PACT_TOKEN")
}

// A stop ends the stream (": the stream ends: …") and pact-channel does not
// hammer the board: it logs why once and waits a minute before it tries
// again, where a plain drop is resumed at once.
func TestAStoppedStreamIsTriedAgainOnlyAfterAMinute(t *testing.T) {
	w := newWorld(t)
	p := w.start(w.env("bram", w.URL))
	w.Exec(`UPDATE agents SET status = 'paused' WHERE id = 'bram'`)
	p.waitLog(t, "the board stopped the pact stream; trying again in a minute", 1)
	time.Sleep(5 * time.Second)
	log := p.stderr.String()
	require.Equal(t, 1, strings.Count(log, "the board stopped the pact stream"), log)
	require.NotContains(t, log, "did not open", "no retry within the minute")
	require.Equal(t, 1, strings.Count(log, "the pact stream is open"), log)
}

// SIGTERM ends pact-channel at once, as the client closing stdin does.
func TestSigtermEndsPactChannel(t *testing.T) {
	w := newWorld(t)
	p := w.start(w.env("bram", w.URL))
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, p.stderr.String())
	case <-time.After(5 * time.Second):
		t.Fatalf("pact-channel did not end on SIGTERM; its stderr:\n%s", p.stderr)
	}
}
