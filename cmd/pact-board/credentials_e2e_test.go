package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// With PACT_EXPORT_FORMAT=biscuit and the real credential-biscuit plugin
// (pinned by SHA-256), a claim by an agent with a registered key carries a
// Biscuit; one without a key says why; revoking the mandate puts every id
// minted for it on the signed list at /.well-known/pact-revocations/biscuit,
// which verifies against the board's published keys.
func TestClaimsExportBiscuitsAndRevocationsArePublished(t *testing.T) {
	ctx := context.Background()
	b := startWithCredentialPlugin(t, "biscuit")

	pub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_, err = b.d.ExecContext(ctx, `INSERT INTO agent_keys (agent_id, kid, public_key) VALUES ('runner-web', 'kidrunnerweb0001', ?)`, []byte(pub))
	require.NoError(t, err)

	code := connect(t, b.base, "code-web", b.tokens["code-web"])
	runner := connect(t, b.base, "runner-web", b.tokens["runner-web"])
	post := code.ok("pact_post", map[string]any{"project_id": "web", "title": "One", "mandate_id": b.roots["code-web"],
		"delegate_to": "runner-web", "child_limits": map[string]any{"runs": 2}})
	first, delegated := post["task_id"], post["delegated_mandate_id"].(string)
	second := code.ok("pact_post", map[string]any{"project_id": "web", "title": "Two", "mandate_id": b.roots["code-web"]})["task_id"]

	claimed := time.Now()
	claim := runner.ok("pact_claim", map[string]any{"task_id": first, "mandate_id": delegated})
	answered := time.Now()
	cred, ok := claim["credential"].(map[string]any)
	require.True(t, ok, "the claim carries a credential: %v", claim)
	require.Equal(t, "biscuit", cred["format"])
	require.NotEmpty(t, cred["biscuit"])
	externalID := cred["external_id"].(string)

	noKey := code.ok("pact_claim", map[string]any{"task_id": second, "mandate_id": b.roots["code-web"]})
	require.Equal(t, "working", noKey["status"], "a claim without a credential still stands")
	require.Contains(t, noKey["credential_note"], "no registered key")

	// The poster revokes what it delegated: every id minted through it is published.
	var before int
	require.NoError(t, b.d.NewRaw(`SELECT version FROM credential_revocation_version WHERE format = 'biscuit'`).Scan(ctx, &before))
	code.ok("pact_revoke", map[string]any{"mandate_id": delegated})

	resp, err := http.Get(b.base + "/.well-known/pact-revocations/biscuit")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
	require.NotEqual(t, "", resp.Header.Get("X-Pact-Revocations-Version"))
	var doc struct{ Payload, Signature string }
	require.NoError(t, json.Unmarshal(body, &doc))
	var payload struct {
		Revoked []string `json:"revoked"`
		Version int      `json:"version"`
	}
	require.NoError(t, json.Unmarshal([]byte(doc.Payload), &payload))
	require.Contains(t, payload.Revoked, externalID)
	require.Equal(t, before+1, payload.Version)

	// The signature verifies with the key the board publishes under that kid.
	parts := strings.SplitN(doc.Signature, ":", 3)
	require.Len(t, parts, 3)
	resp, err = http.Get(b.base + "/.well-known/pact-keys.json")
	require.NoError(t, err)
	var jwks struct {
		Keys []struct{ Kid, X string } `json:"keys"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&jwks))
	resp.Body.Close()
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	verified := false
	for _, k := range jwks.Keys {
		if k.Kid == parts[1] {
			x, err := base64.RawURLEncoding.DecodeString(k.X)
			require.NoError(t, err)
			verified = ed25519.Verify(ed25519.PublicKey(x), []byte(doc.Payload), sig)
		}
	}
	require.True(t, verified, "the revocation list is signed by a published board key")

	// The official biscuit-wasm agrees: the token verifies under the published key and the list revokes it.
	x := exportedBiscuit{Token: cred["biscuit"].(string), TaskID: first.(string), Limits: map[string]float64{"runs": 2},
		Revoked: payload.Revoked}
	x.LiveUntil, x.ExpiredBy = biscuitLifetime(t, b, claimed, answered, 24*time.Hour, b.roots["code-web"], delegated)
	checkBoardBiscuit(t, b.base, x)

	resp, err = http.Get(b.base + "/.well-known/pact-revocations/x509")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

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
