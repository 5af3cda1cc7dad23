package pacts_test

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pluginhost"
)

// sseEvent is one server-sent event as a client reads it.
type sseEvent struct {
	ID, Kind string
	Data     map[string]any
}

// sseClient holds one connection to GET /pacts/stream.
type sseClient struct {
	events chan sseEvent
	cancel context.CancelFunc
}

// stream connects agent to the pact stream with query (e.g. "?pacts=…")
// and lastID as Last-Event-ID ("" for none), and fails unless it is
// answered 200.
func (f *fixture) stream(t *testing.T, agent, query, lastID string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL+"/pacts/stream"+query, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+f.Token(agent))
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("stream answered %d: %s", resp.StatusCode, body)
	}
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	c := &sseClient{events: make(chan sseEvent, 100), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		defer close(c.events)
		var ev sseEvent
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.ID != "" {
					c.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.Kind = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data)
			}
		}
	}()
	t.Cleanup(cancel)
	return c
}

// next is the stream's next event; it fails after 10 s without one (the
// stream's own safety re-check is 15 s, so only a wake delivers in time).
func (c *sseClient) next(t *testing.T) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-c.events:
		require.True(t, ok, "the stream ended")
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
		return sseEvent{}
	}
}

// none fails if an event arrives within d.
func (c *sseClient) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case ev, ok := <-c.events:
		if ok {
			t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(d):
	}
}

// runWorkers runs the World's workers (the webhook worker among them) until
// the test ends.
func runWorkers(t *testing.T, f *fixture) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Kernel.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// webhookPlugin builds and starts the real notifier-webhook plugin as
// "webhook", with env as its whole environment.
func webhookPlugin(t *testing.T, env map[string]string) *pluginhost.Host {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "notifier-webhook"), "./plugins/notifier-webhook")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	host, err := pluginhost.New([]pluginhost.Spec{{Name: "webhook", Kind: "notifier", Binary: "notifier-webhook", Env: env}},
		&pluginhost.Options{Dir: dir})
	require.NoError(t, err)
	host.Start()
	t.Cleanup(func() { _ = host.Close() })
	return host
}

// delivered is one POST a receiver got.
type delivered struct {
	header http.Header
	body   []byte
}

// receiver is a local HTTPS webhook receiver answering status (settable).
type receiver struct {
	*httptest.Server
	status atomic.Int32
	got    chan delivered
	// accepted counts the deliveries answered 2xx, each before its answer.
	accepted atomic.Int64
	// caFile is its certificate, for the plugin's SSL_CERT_FILE.
	caFile string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: make(chan delivered, 100)}
	r.status.Store(http.StatusOK)
	r.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		// The answer is fixed before the test hears of the delivery: a
		// test that changes status once it has one changes the next
		// answers only (read after, a test's switch to 200 on seeing a
		// 503 could turn that very answer into a 200, and its retry never
		// came: seen in CI).
		status := int(r.status.Load())
		if status < 300 {
			r.accepted.Add(1)
		}
		r.got <- delivered{header: req.Header.Clone(), body: body}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	r.caFile = filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(r.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw}), 0o600))
	return r
}

// next is the receiver's next delivery; it fails after 45 s without one.
// The bound is generous: the first delivery waits for the webhook plugin's
// first start, which under -race on a loaded two-core machine (make test)
// once took more than 15 s.
func (r *receiver) next(t *testing.T) delivered {
	t.Helper()
	select {
	case d := <-r.got:
		return d
	case <-time.After(45 * time.Second):
		t.Fatal("no delivery within 45 s")
		return delivered{}
	}
}

// nextNoneLost is next for a receiver that every webhook of f's agents
// posts to: it fails as soon as f has marked more sends sent than the
// receiver accepted, since a send marked sent that never arrived would
// otherwise be found only at next's bound.
func (r *receiver) nextNoneLost(t *testing.T, f *fixture) delivered {
	t.Helper()
	deadline := time.After(45 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case d := <-r.got:
			return d
		case <-deadline:
			t.Fatalf("no delivery within 45 s; the sends: %s", sendsNow(t, f))
			return delivered{}
		case <-tick.C:
			if sent := f.Count(`SELECT count(*) FROM pact_sends WHERE sent_at IS NOT NULL`); int64(sent) > r.accepted.Load() {
				t.Fatalf("%d sends are marked sent and the receiver accepted %d", sent, r.accepted.Load())
			}
		}
	}
}

// sendsNow describes f's webhook sends as they stand, so a delivery that
// never came says where its send is: leased, waiting, dead, and why.
func sendsNow(t *testing.T, f *fixture) string {
	t.Helper()
	rows, err := f.DB.QueryContext(context.Background(), `SELECT format('send %s: %s attempts, sent %s, dead %s, last error %L, lease ends in %s, next attempt in %s',
		id, attempts, sent_at IS NOT NULL, dead_at IS NOT NULL, last_error, lease_expires_at - now(), next_attempt_at - now())
		FROM pact_sends ORDER BY id`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err.Error()
		}
		out = append(out, line)
	}
	return strings.Join(out, "; ")
}

// eventOf is the pact event a delivery carries (data.event).
func eventOf(t *testing.T, d delivered) map[string]any {
	t.Helper()
	var p struct {
		Data struct {
			Event map[string]any `json:"event"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(d.body, &p))
	require.NotNil(t, p.Data.Event, "data.event in %s", d.body)
	return p.Data.Event
}

// eventually polls cond until it holds, failing after 15 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 15 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watchLooks counts the webhook worker's looks for its next due send (its
// one query of pact_sends' earliest due time) from now until stop or the
// test's end.
func watchLooks(t *testing.T, f *fixture) (looks *atomic.Int64, stop func()) {
	looks = new(atomic.Int64)
	stop = f.DB.Watch(func(sql string) {
		if strings.Contains(sql, "min(greatest(next_attempt_at") {
			looks.Add(1)
		}
	})
	t.Cleanup(stop)
	return looks, stop
}
