package main

import (
	"bufio"
	"embed"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/sdk/npmtest"
)

// js holds channel.mjs and the pinned @modelcontextprotocol/sdk (the same
// package and lock as core/mcpserve/tsclient, so one install serves both).
//
//go:embed js/channel.mjs js/package.json js/package-lock.json
var js embed.FS

// The official MCP TypeScript client starts pact-channel over stdio, as
// Claude Code does, sees the claude/channel capability and the
// instructions, and receives notifications/claude/channel after another
// agent posts in a pact both sit in. The agent's token comes from the env
// file pact-connect writes, the one file in PACT_HOOK_DIR.
func TestTheTypeScriptClientReceivesTheChannelNotification(t *testing.T) {
	w := newWorld(t)
	id := w.pact("Launch")
	files, err := fs.Sub(js, "js")
	require.NoError(t, err)
	dir := npmtest.Install(t, files, "pact-mcp-tsclient", "@modelcontextprotocol/sdk/package.json")
	body, err := js.ReadFile("js/channel.mjs")
	require.NoError(t, err)
	script := npmtest.WriteScript(t, dir, "channel", body)

	hooks := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(hooks, "bram.env"),
		[]byte("PACT_URL='"+w.URL+"'\nPACT_TOKEN='"+w.Token("bram")+"'\n"), 0o600))
	cmd := exec.Command("node", script, w.bin)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PACT_HOOK_DIR=" + hooks}
	stderr := &logtest.Buffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	next := func() map[string]any {
		select {
		case m, ok := <-lines:
			require.True(t, ok, "node ended; its stderr:\n%s", stderr)
			return m
		case <-time.After(60 * time.Second):
			t.Fatalf("nothing from the TypeScript client in 60 s; its stderr:\n%s", stderr)
			return nil
		}
	}

	hello := next()
	caps := hello["capabilities"].(map[string]any)
	require.Equal(t, map[string]any{"claude/channel": map[string]any{}}, caps["experimental"])
	require.Contains(t, hello["instructions"], "get_pact")
	(&proc{stderr: stderr}).waitLog(t, "the pact stream is open", 1)

	require.Equal(t, "W-001", w.post(id, "The copy is ready for review."))
	n := next()["notification"].(map[string]any)
	require.Equal(t, "notifications/claude/channel", n["method"])
	params := n["params"].(map[string]any)
	require.Equal(t, "The copy is ready for review.", params["content"])
	require.Equal(t, "W-001", meta(params)["message_no"])
	require.Equal(t, id, meta(params)["pact_id"])
}
