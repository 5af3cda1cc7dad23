// Package tsclient drives a PACT Board agent URL with the official MCP
// TypeScript SDK client (@modelcontextprotocol/sdk from npm, pinned by
// js/package-lock.json), for tests that prove the board works with a
// client nobody here wrote.
//
// It needs Node.js 20 or later with npm: without them Run fails the test
// rather than skipping it (sdk/npmtest installs the package).
package tsclient

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/npmtest"
)

// js holds agent.mjs and the pinned npm package; embedded so callers in any
// directory find them.
//
//go:embed js/agent.mjs js/package.json js/package-lock.json
var js embed.FS

// Call is one tool call.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
}

// Result is one call's result as the TypeScript SDK returned it.
type Result struct {
	IsError           bool
	Content           []struct{ Type, Text string }
	StructuredContent map[string]any
}

// Output is what a run saw: the negotiated protocol version, the server's
// name and version, its instructions, the tool names (sorted) and each
// call's result, in order.
type Output struct {
	ProtocolVersion string
	Server          struct{ Name, Version string }
	Instructions    string
	Tools           []string
	Results         []Result
}

// Run connects to url with token as the bearer, makes calls in order on one
// session and returns what it saw; it fails t when the client cannot run.
func Run(t testing.TB, url, token string, calls ...Call) Output {
	t.Helper()
	dir, script := install(t)
	raw, err := json.Marshal(map[string]any{"url": url, "token": token, "calls": calls})
	if err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	file := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, file)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tsclient: node agent.mjs: %v\n%s", err, stderr.String())
	}
	var out Output
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("tsclient: read the client's output: %v\n%s", err, stdout.String())
	}
	if len(out.Results) != len(calls) {
		t.Fatalf("tsclient: %d calls made, %d results", len(calls), len(out.Results))
	}
	return out
}

// install returns a directory holding js/'s package installed
// (sdk/npmtest) and the name of agent.mjs in it.
func install(t testing.TB) (dir, script string) {
	t.Helper()
	files, err := fs.Sub(js, "js")
	if err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	dir = npmtest.Install(t, files, "pact-mcp-tsclient", "@modelcontextprotocol/sdk/package.json")
	body, err := js.ReadFile("js/agent.mjs")
	if err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	return dir, npmtest.WriteScript(t, dir, "agent", body)
}
