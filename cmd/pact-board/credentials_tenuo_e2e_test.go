package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/tenuo"
)

// With PACT_EXPORT_FORMAT=tenuo and the real credential-tenuo plugin, a
// claim carries a warrant stack that verifies link by link against the
// keys the board publishes, with the agent's registered key holding the
// leaf; flipping any byte of it fails verification. The example verifier
// (docs/examples/tenuo-verifier, built and run as its own binary, told
// only the board's URL) accepts a call signed with the agent's key once,
// refuses a widened argument and another project, and refuses the stack
// once the board has published the revocation of a link above it.
func TestClaimsExportTenuoStacksThatVerifyOffline(t *testing.T) {
	b := startWithCredentialPlugin(t, "tenuo")
	d := delegate(t, b, map[string]any{"runs": 2})
	cred := d.claim(t, "tenuo")
	text := cred["warrant_stack"].(string)

	// Offline, link by link: the root answers to a published board key,
	// each link to its parent; the agent's key holds the leaf.
	var keys []ed25519.PublicKey
	for _, k := range publishedKeys(t, b.base) {
		keys = append(keys, k.key)
	}
	raw, err := tenuo.FromText(text)
	require.NoError(t, err)
	stack, err := tenuo.DecodeStack(raw)
	require.NoError(t, err)
	require.Len(t, stack, 3, "one warrant per ledger link (root, delegated) and the agent's leaf")
	for i, s := range stack {
		require.True(t, s.VerifySignature(), "link %d is signed by its issuer", i)
		require.True(t, trusted(keys, s.Payload.Issuer), "link %d was issued by a published board key", i)
		require.NoError(t, verifyStack(stack[:i+1], keys), "the stack verifies up to link %d", i)
	}
	leaf := stack[2].Payload
	require.Equal(t, cred["external_id"], leaf.IDString())
	require.Equal(t, d.runnerKey.Public(), leaf.Holder, "the agent's registered key holds the leaf")
	require.Contains(t, leaf.Tools, "task.work")
	for i := range raw {
		flipped := bytes.Clone(raw)
		flipped[i] ^= 0x01
		s, err := tenuo.DecodeStack(flipped)
		if err == nil {
			err = verifyStack(s, keys)
		}
		require.Error(t, err, "a stack with byte %d flipped must not verify", i)
	}

	v := startVerifier(t, b.base)
	call := func(args map[string]any, signArgs map[string]any) (int, string) {
		now := time.Now()
		sig, err := tenuo.SignPoP(d.runnerKey.Seed(), leaf.ID, "task.work", signArgs, now)
		require.NoError(t, err)
		return v.post(t, map[string]any{"tool": "task.work", "args": args, "warrant_stack": text,
			"signature": base64.RawURLEncoding.EncodeToString(sig), "timestamp": now.Unix()})
	}
	ok1 := map[string]any{"project": "web", "task_id": d.taskID, "runs": 1}
	status, body := call(ok1, ok1)
	require.Equal(t, http.StatusOK, status, body)
	status, body = call(ok1, ok1)
	require.Equal(t, http.StatusConflict, status, "a signed call is accepted once: %s", body)
	wide := map[string]any{"project": "web", "task_id": d.taskID, "runs": 3}
	status, body = call(wide, wide)
	require.Equal(t, http.StatusForbidden, status, "runs is capped at 2 by the delegation: %s", body)
	other := map[string]any{"project": "mobile", "task_id": d.taskID, "runs": 1}
	status, body = call(other, other)
	require.Equal(t, http.StatusForbidden, status, "another project: %s", body)

	// Revoking the delegated link: the verifier learns it from the board's
	// signed list alone. Polling uses a proof signed over other arguments,
	// so no poll can be accepted; the stack check comes first, so the
	// refusal changes to "revoked" once the verifier has the new list.
	d.code.ok("pact_revoke", map[string]any{"mandate_id": d.mandateID})
	ok2 := map[string]any{"project": "web", "task_id": d.taskID, "runs": 2}
	require.Eventually(t, func() bool {
		_, body := call(ok2, ok1)
		return strings.Contains(body, "revoked")
	}, 30*time.Second, 200*time.Millisecond, "the verifier refuses the stack once the revocation is published")
	status, body = call(ok2, ok2)
	require.Equal(t, http.StatusForbidden, status, body)
	require.Contains(t, body, "revoked")
}

// verifyStack is the offline check a tool server makes: every link, the
// root against the trusted keys.
func verifyStack(stack []*tenuo.Signed, keys []ed25519.PublicKey) error {
	_, err := tenuo.VerifyStack(stack, tenuo.VerifyOptions{TrustedRoots: keys, Now: time.Now()})
	return err
}

func trusted(keys []ed25519.PublicKey, k ed25519.PublicKey) bool {
	for _, t := range keys {
		if t.Equal(k) {
			return true
		}
	}
	return false
}

// verifierProcess is the example verifier running as its own binary.
type verifierProcess struct{ url string }

// startVerifier builds docs/examples/tenuo-verifier (its own module) and
// runs it against the board at base, refetching every second, then waits
// until it holds a fresh revocation list.
func startVerifier(t *testing.T, base string) *verifierProcess {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tenuo-verifier")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "docs", "examples", "tenuo-verifier")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-board", base, "-addr", addr, "-refresh", "1s")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("tenuo-verifier output:\n%s", logs.String())
		}
	})
	v := &verifierProcess{url: "http://" + addr + "/call"}
	// An empty call is refused with 503 until the verifier has a fresh
	// list, then for its missing timestamp (403).
	require.Eventually(t, func() bool {
		status, _ := v.postRaw([]byte(`{}`))
		return status == http.StatusForbidden
	}, 30*time.Second, 100*time.Millisecond, "the verifier starts and fetches the board's revocation list")
	return v
}

func (v *verifierProcess) post(t *testing.T, body map[string]any) (int, string) {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	status, out := v.postRaw(raw)
	require.NotZero(t, status, "the verifier answers: %s", out)
	return status, out
}

// postRaw returns 0 and the error when the verifier does not answer.
func (v *verifierProcess) postRaw(body []byte) (int, string) {
	resp, err := http.Post(v.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}
