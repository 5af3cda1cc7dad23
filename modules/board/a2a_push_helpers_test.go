package board_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/modules/board"
)

// pushPost is one POST a push receiver got.
type pushPost struct {
	path   string
	header http.Header
	body   []byte
}

// task is the post's StreamResponse's task.
func (p pushPost) task(t *testing.T) map[string]any {
	t.Helper()
	var sr map[string]any
	require.NoError(t, json.Unmarshal(p.body, &sr), "%s", p.body)
	require.Len(t, sr, 1, "a StreamResponse holds one payload: %s", p.body)
	task, ok := sr["task"].(map[string]any)
	require.True(t, ok, "the payload is a task: %s", p.body)
	return task
}

// pushReceiver is a local HTTPS receiver of push notifications: it fails
// the first failFirst posts (503), or every post while failAll is set
// (500), and records each post, failed or not.
type pushReceiver struct {
	*httptest.Server
	caFile    string
	failFirst atomic.Int32
	failAll   atomic.Bool
	mu        sync.Mutex
	got       []pushPost
}

func newPushReceiver(t *testing.T) *pushReceiver {
	r := &pushReceiver{}
	r.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, pushPost{path: req.URL.Path, header: req.Header.Clone(), body: body})
		r.mu.Unlock()
		switch {
		case r.failAll.Load():
			http.Error(w, "the receiver is down", http.StatusInternalServerError)
		case r.failFirst.Add(-1) >= 0:
			http.Error(w, "try later", http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(r.Close)
	r.caFile = filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(r.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw}), 0o600))
	return r
}

// posts are the posts to path so far.
func (r *pushReceiver) posts(path string) []pushPost {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []pushPost
	for _, p := range r.got {
		if p.path == path {
			out = append(out, p)
		}
	}
	return out
}

// await waits until path got n posts and returns them. The bound is
// generous: the first post waits for the plugin's first start.
func (r *pushReceiver) await(t *testing.T, path string, n int) []pushPost {
	t.Helper()
	require.Eventually(t, func() bool { return len(r.posts(path)) >= n }, 45*time.Second, 10*time.Millisecond,
		"%s got %d posts, not %d", path, len(r.posts(path)), n)
	return r.posts(path)
}

// awaitState waits for a post to path whose task is in state and returns
// it.
func (r *pushReceiver) awaitState(t *testing.T, path, state string) pushPost {
	t.Helper()
	return r.awaitBody(t, path, `"state":"`+state+`"`)
}

// awaitBody waits for a post to path whose body holds text and returns it.
func (r *pushReceiver) awaitBody(t *testing.T, path, text string) pushPost {
	t.Helper()
	var found pushPost
	require.Eventually(t, func() bool {
		for _, p := range r.posts(path) {
			if strings.Contains(string(p.body), text) {
				found = p
				return true
			}
		}
		return false
	}, 45*time.Second, 10*time.Millisecond, "%s got no post holding %s", path, text)
	return found
}

// webhookPluginDir builds the real notifier-webhook plugin into a
// directory of the test's.
func webhookPluginDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "notifier-webhook"), "./plugins/notifier-webhook")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return dir
}

// webhookPlugin starts the plugin built in dir as "webhook", with env.
func webhookPlugin(t *testing.T, dir string, env map[string]string) *pluginhost.Host {
	t.Helper()
	host, err := pluginhost.New([]pluginhost.Spec{{Name: "webhook", Kind: "notifier", Binary: "notifier-webhook", Env: env}},
		&pluginhost.Options{Dir: dir})
	require.NoError(t, err)
	host.Start()
	t.Cleanup(func() { _ = host.Close() })
	return host
}

// newPushWorld is newA2AWorld whose board pushes through the real webhook
// plugin, which may reach r, retrying after each of retries (one of 50 ms
// when none), with its workers running.
func newPushWorld(t *testing.T, r *pushReceiver, retries ...time.Duration) *world {
	w, _ := newPushWorldAndPlugin(t, r, retries...)
	return w
}

// newPushWorldAndPlugin is newPushWorld, with the plugin's host.
func newPushWorldAndPlugin(t *testing.T, r *pushReceiver, retries ...time.Duration) (*world, *pluginhost.Host) {
	if len(retries) == 0 {
		retries = []time.Duration{50 * time.Millisecond}
	}
	host := webhookPlugin(t, webhookPluginDir(t), map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1", "SSL_CERT_FILE": r.caFile})
	w := newWorldOf(t, board.New(board.Options{Notifiers: host, PushRetries: retries, PushTick: time.Second}))
	w.agent("a2a-web", "a2a", nil, "web")
	runKernel(t, w.Kernel)
	return w, host
}

// runKernel runs k's workers until the test ends.
func runKernel(t *testing.T, k *kernel.Kernel) {
	t.Cleanup(runKernelUntil(t, k))
}

// runKernelUntil runs k's workers until the function it returns is called
// (at the latest when the test ends).
func runKernelUntil(t *testing.T, k *kernel.Kernel) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = k.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// signingKey is the key the agent's extended card hands it.
func (w *world) signingKey(agent string) string {
	w.T.Helper()
	card := w.a2aResult(agent, "GetExtendedAgentCard", map[string]any{})
	caps := card["capabilities"].(map[string]any)
	require.Equal(w.T, true, caps["pushNotifications"])
	for _, e := range caps["extensions"].([]any) {
		ext := e.(map[string]any)
		if ext["uri"] == board.PushSignaturesURI {
			return ext["params"].(map[string]any)["secret"].(string)
		}
	}
	w.T.Fatalf("the extended card has no %s extension: %v", board.PushSignaturesURI, caps)
	return ""
}

// verifySigned checks p's Standard Webhooks signature with secret as a
// receiver would, apart from the plugin's code: v1, the base64
// HMAC-SHA256 of "id.timestamp.body".
func verifySigned(t *testing.T, secret string, p pushPost) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(p.header.Get("webhook-id") + "." + p.header.Get("webhook-timestamp") + "."))
	mac.Write(p.body)
	require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)), p.header.Get("webhook-signature"),
		"the post is signed with the agent's key")
}

// newBoard is the board module pushing through the plugins of host.
func newBoard(host *pluginhost.Host) *board.Module {
	return board.New(board.Options{Notifiers: host})
}
