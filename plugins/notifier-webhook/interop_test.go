package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/notifier"
)

// knownSignature is what the official standardwebhooks library computes for
// the Standard Webhooks example (testSecret, msg_p5jXN8AQM9LWM0D4loKWxJek,
// 1614265330, {"test": 2432232314}); TestInteropStandardWebhooks checks it
// against the library each run.
const knownSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

// interopDir holds verify.mjs and the pinned npm package (package-lock.json).
const interopDir = "testdata/interop"

type interopCase struct {
	Name    string            `json:"name"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Valid   bool              `json:"valid"`
}

type interopSign struct {
	ID        string `json:"id"`
	Timestamp int64  `json:"timestamp"`
	Body      string `json:"body"`
}

// TestInteropStandardWebhooks has the official standardwebhooks npm library
// verify what this plugin sends: real deliveries pass, tampered ones fail.
// It needs node and npm; it installs the pinned library with `npm ci` when
// testdata/interop/node_modules is missing.
func TestInteropStandardWebhooks(t *testing.T) {
	node := requireNode(t)

	r := newReceiver(t, http.StatusOK, "ok")
	w := New(Options{AllowPrivate: true, RootCAs: r.roots()}) // the real clock: the library refuses stale timestamps
	dest := notifier.Destination{URL: r.srv.URL, Secret: testSecret}
	brief := sample()
	brief.Kind, brief.IdempotencyKey = "brief", "ntf_brief"
	brief.Brief = &notifier.Brief{Greeting: "อรุณสวัสดิ์", Sections: []notifier.BriefSection{{Title: "Needs you", Items: []notifier.BriefItem{{Text: `"quoted" \ <b>`, TaskID: "t1"}}}}}
	var cases []interopCase
	for _, n := range []notifier.Notification{sample(), brief} {
		_, err := w.Deliver(t.Context(), dest, n)
		require.NoError(t, err)
		d := r.next(t)
		h := map[string]string{
			"webhook-id":        d.header.Get("webhook-id"),
			"webhook-timestamp": d.header.Get("webhook-timestamp"),
			"webhook-signature": d.header.Get("webhook-signature"),
		}
		cases = append(cases, interopCase{Name: n.Kind, Headers: h, Body: string(d.body), Valid: true})

		tampered := strings.Replace(string(d.body), `"title":"`, `"title":"X`, 1)
		cases = append(cases, interopCase{Name: n.Kind + " with a changed body", Headers: h, Body: tampered})
		other := clone(h)
		other["webhook-id"] = "ntf_other"
		cases = append(cases, interopCase{Name: n.Kind + " with another id", Headers: other, Body: string(d.body)})
	}
	// A signature made ten minutes ago is refused by the library's tolerance.
	key, err := parseSecret(testSecret)
	require.NoError(t, err)
	old := time.Now().Add(-10 * time.Minute).Unix()
	cases = append(cases, interopCase{Name: "stale", Body: "{}", Headers: map[string]string{
		"webhook-id": "x", "webhook-timestamp": strconv.FormatInt(old, 10), "webhook-signature": sign(key, "x", old, []byte("{}")),
	}})

	input := map[string]any{
		"secret": testSecret,
		"cases":  cases,
		"sign":   []interopSign{{ID: "msg_p5jXN8AQM9LWM0D4loKWxJek", Timestamp: 1614265330, Body: `{"test": 2432232314}`}},
	}
	file := filepath.Join(t.TempDir(), "cases.json")
	raw, err := json.Marshal(input)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, raw, 0o600))

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "verify.mjs", file)
	cmd.Dir = interopDir
	out, err := cmd.CombinedOutput()
	t.Logf("verify.mjs:\n%s", out)
	require.NoError(t, err, "the standardwebhooks library disagrees with this plugin:\n%s", out)
	require.Contains(t, string(out), "sign msg_p5jXN8AQM9LWM0D4loKWxJek "+knownSignature+"\n")
	passed := 0
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "ok ") {
			passed++
		}
	}
	require.Equal(t, len(cases), passed, "every case was checked")
}

// requireNode returns node's path after making sure the pinned library is
// installed. Missing node or npm fails the test with what to install: make
// test must not silently skip the interop check.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to check webhook signatures with the official standardwebhooks library; install Node.js 18+ (Debian: apt-get install nodejs npm)")
	}
	if _, err := os.Stat(filepath.Join(interopDir, "node_modules", "standardwebhooks", "package.json")); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm is needed to install the standardwebhooks library for the interop test; install it (Debian: apt-get install npm)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = interopDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s failed (it needs the npm registry): %v\n%s", interopDir, err, out)
	}
	return node
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
