package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
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
	d := delegate(t, b, map[string]any{"runs": 2})
	code, delegated := d.code, d.mandateID
	second := code.ok("pact_post", map[string]any{"project_id": "web", "title": "Two", "mandate_id": b.roots["code-web"]})["task_id"]

	claimed := time.Now()
	cred := d.claim(t, "biscuit")
	answered := time.Now()
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
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	verified := false
	for _, k := range publishedKeys(t, b.base) {
		if k.kid == parts[1] {
			verified = ed25519.Verify(k.key, []byte(doc.Payload), sig)
		}
	}
	require.True(t, verified, "the revocation list is signed by a published board key")

	// The official biscuit-wasm agrees: the token verifies under the published key and the list revokes it.
	x := exportedBiscuit{Token: cred["biscuit"].(string), TaskID: d.taskID, Limits: map[string]float64{"runs": 2},
		Revoked: payload.Revoked}
	x.LiveUntil, x.ExpiredBy = biscuitLifetime(t, b, claimed, answered, 24*time.Hour, b.roots["code-web"], delegated)
	checkBoardBiscuit(t, b.base, x)

	resp, err = http.Get(b.base + "/.well-known/pact-revocations/x509")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}
