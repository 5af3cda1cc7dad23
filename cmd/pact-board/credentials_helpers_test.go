package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// startWithCredentialPlugin builds plugins/credential-<format> into a fresh
// plugin directory, pins it by SHA-256 in PACT_PLUGINS and starts a board
// exporting that format on claim.
func startWithCredentialPlugin(t *testing.T, format string, env ...map[string]string) *e2eBoard {
	t.Helper()
	dir := t.TempDir()
	binary := "credential-" + format
	build := exec.Command("go", "build", "-o", filepath.Join(dir, binary), "./plugins/"+binary)
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	raw, err := os.ReadFile(filepath.Join(dir, binary))
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	catalog, err := json.Marshal([]map[string]any{{"name": format, "kind": "credential", "binary": binary,
		"sha256": hex.EncodeToString(sum[:])}})
	require.NoError(t, err)
	return startE2E(t, append([]map[string]string{{"PACT_PLUGIN_DIR": dir, "PACT_PLUGINS": string(catalog),
		"PACT_EXPORT_FORMAT": format}}, env...)...)
}

// delegation is a task code-web posted for runner-web with a delegated
// mandate, runner-web holding a registered Ed25519 key.
type delegation struct {
	code, runner *agentClient
	runnerKey    ed25519.PrivateKey
	taskID       string
	mandateID    string // the delegated mandate
}

// delegate registers a key for runner-web and has code-web post a task
// delegated to it under childLimits.
func delegate(t *testing.T, b *e2eBoard, childLimits map[string]any) *delegation {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_, err = b.d.ExecContext(context.Background(),
		`INSERT INTO agent_keys (agent_id, org_id, kid, public_key)
			SELECT id, org_id, 'kidrunnerweb0001', ? FROM agents WHERE id = 'runner-web'`, []byte(pub))
	require.NoError(t, err)
	d := &delegation{code: connect(t, b.base, "code-web", b.tokens["code-web"]),
		runner: connect(t, b.base, "runner-web", b.tokens["runner-web"]), runnerKey: key}
	post := d.code.ok("pact_post", map[string]any{"project_id": "web", "title": "Delegated", "mandate_id": b.roots["code-web"],
		"delegate_to": "runner-web", "child_limits": childLimits})
	d.taskID, d.mandateID = post["task_id"].(string), post["delegated_mandate_id"].(string)
	return d
}

// claim has runner-web claim the task and returns the credential the
// claim carries, of format.
func (d *delegation) claim(t *testing.T, format string) map[string]any {
	t.Helper()
	claim := d.runner.ok("pact_claim", map[string]any{"task_id": d.taskID, "mandate_id": d.mandateID})
	cred, ok := claim["credential"].(map[string]any)
	require.True(t, ok, "the claim carries a credential: %v", claim)
	require.Equal(t, format, cred["format"])
	return cred
}

// publishedKey is one key of the board's JWKS.
type publishedKey struct {
	kid string
	key ed25519.PublicKey
}

// publishedKeys reads the board's Ed25519 keys from
// /.well-known/pact-keys.json, the active key first.
func publishedKeys(t *testing.T, base string) []publishedKey {
	t.Helper()
	resp, err := http.Get(base + "/.well-known/pact-keys.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var jwks struct {
		Keys []struct{ Kid, X string } `json:"keys"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&jwks))
	var keys []publishedKey
	for _, k := range jwks.Keys {
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		require.NoError(t, err)
		keys = append(keys, publishedKey{k.Kid, ed25519.PublicKey(x)})
	}
	require.NotEmpty(t, keys)
	return keys
}
