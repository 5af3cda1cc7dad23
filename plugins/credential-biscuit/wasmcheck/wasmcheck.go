// Package wasmcheck has the official @biscuit-auth/biscuit-wasm (an
// independent Rust implementation, from npm) verify and authorize Biscuit
// tokens in tests: the plugin's own tokens and those a running board exports.
//
// It needs Node.js 20 or later with npm. Without them Run fails the test
// rather than skipping it, so make test cannot pass without the check. The
// pinned package is installed by npm ci into the user's cache dir, keyed by
// the lock file's hash, so node_modules never enters the source tree (where
// gofmt and go vet walk) and later runs skip the install.
package wasmcheck

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/npmtest"
)

// js holds verify.mjs and the pinned npm package (package-lock.json). They
// are embedded so callers in any directory find them.
//
//go:embed js/verify.mjs js/package.json js/package-lock.json
var js embed.FS

// Input is what verify.mjs reads: the board's root public key, the root key
// id tokens must carry, and the calls to check.
type Input struct {
	PublicKeyHex string `json:"public_key_hex"` // raw 32-byte Ed25519 key, hex
	RootKeyID    uint32 `json:"root_key_id"`
	Cases        []Case `json:"cases"`
}

// Case is one call against one token. verify.mjs states the authorizer's
// facts tool, project, time, one arg per argument (numbers in millionths,
// "project" left to the project fact) and arg_names.
type Case struct {
	Name    string         `json:"name"`
	Token   string         `json:"token"` // base64url, as exported
	Tool    string         `json:"tool"`
	Project string         `json:"project"`
	Args    map[string]any `json:"args"`
	Now     time.Time      `json:"now"`
	Revoked []string       `json:"revoked"` // hex revocation ids the verifier refuses
	Allow   bool           `json:"allow"`   // the expected outcome
	// IDs, when set, are the token's revocation ids (hex, root first) that
	// biscuit-wasm must compute too.
	IDs []string `json:"ids,omitempty"`
}

// Run has biscuit-wasm check every case and fails t unless each outcome is
// the expected one. It returns verify.mjs's output.
func Run(t testing.TB, in Input) string {
	t.Helper()
	if len(in.Cases) == 0 {
		t.Fatal("wasmcheck: no cases")
	}
	dir, script := install(t)
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("wasmcheck: %v", err)
	}
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatalf("wasmcheck: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, file)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("biscuit-wasm (verify.mjs):\n%s", out)
	if err != nil {
		t.Fatalf("biscuit-wasm disagrees with the expected outcomes: %v\n%s", err, out)
	}
	passed := 0
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "ok ") {
			passed++
		}
	}
	if passed != len(in.Cases) {
		t.Fatalf("biscuit-wasm checked %d of %d cases:\n%s", passed, len(in.Cases), out)
	}
	return string(out)
}

// install returns a directory holding js/'s package installed
// (sdk/npmtest) and the name of verify.mjs in it.
func install(t testing.TB) (dir, script string) {
	t.Helper()
	files, err := fs.Sub(js, "js")
	if err != nil {
		t.Fatalf("wasmcheck: %v", err)
	}
	dir = npmtest.Install(t, files, "pact-biscuit-interop", "@biscuit-auth/biscuit-wasm/package.json")
	body, err := js.ReadFile("js/verify.mjs")
	if err != nil {
		t.Fatalf("wasmcheck: %v", err)
	}
	return dir, npmtest.WriteScript(t, dir, "verify", body)
}
