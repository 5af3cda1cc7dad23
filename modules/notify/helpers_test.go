package notify_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// world is a board for notify's tests on kerneltest's World, with no
// modules of its own (a test builds the notify service over w.DB, or runs
// board processes with the notify module through Process): ana owns the
// default organization (project web, the agent code-web), vic is a viewer
// there, bo owns acme (project rocket); task is a task of web.
type world struct {
	*kerneltest.World
	task string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{World: kerneltest.New(t, kerneltest.Options{NoMCP: true})}
	w.Person("", "ana", identity.Owner)
	w.Person("ana", "vic", identity.Viewer)
	w.Project("ana", "web", false)
	w.Org("acme", "bo")
	w.Project("bo", "rocket", false)
	r := w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	// Tasks are modules/board's, and a module's tests may not import another
	// module: the one row notifications point at is written directly.
	require.NoError(t, w.DB.NewRaw(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
		VALUES (gen_random_uuid(), 'web', 'Deploy', 'code-web', ?, 'submitted') RETURNING id::text`,
		r.RootMandateID.String()).Scan(context.Background(), &w.task))
	return w
}

// acmeOf is the id of bo's organization.
func acmeOf(t testing.TB, d bun.IDB) string {
	t.Helper()
	var id string
	require.NoError(t, d.NewRaw(`SELECT org_id FROM humans WHERE id = 'bo'`).Scan(context.Background(), &id))
	return id
}

// mandate inserts a human-issued root mandate of holder expiring at the SQL
// expression expires, created now (or at created, when given). The expiry
// sweep's cases need mandates that expired, or were made, in the past,
// which no service issues.
func mandate(t testing.TB, d *db.DB, holder, expires string, created ...string) string {
	t.Helper()
	at := "now()"
	if len(created) > 0 {
		at = created[0]
	}
	var id string
	require.NoError(t, d.NewRaw(`INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth,
		expires_at, signature, created_at) VALUES (gen_random_uuid(), 'human', 'ana', ?, '{task.work}', 1, 0, `+expires+`, 'sig', `+at+`)
		RETURNING id::text`, holder).Scan(context.Background(), &id))
	return id
}

// enqueue writes n into the outbox in a transaction of its own, as a board
// event would.
func enqueue(t testing.TB, d *db.DB, n outbox.Notification) int64 {
	t.Helper()
	var id int64
	require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		id, err = outbox.Enqueue(ctx, tx, n)
		return err
	}))
	return id
}

// enqueueMany writes n messages of web into the outbox in one transaction,
// as a burst of board events would.
func enqueueMany(t testing.TB, d *db.DB, n int) {
	t.Helper()
	require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for i := range n {
			if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Message, ProjectID: "web",
				Title: fmt.Sprintf("message %d", i+1)}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// rowState is what the tests check of an outbox row.
type rowState struct {
	Attempts   int        `bun:"attempts"`
	SentAt     *time.Time `bun:"sent_at"`
	DeadAt     *time.Time `bun:"dead_at"`
	LastError  *string    `bun:"last_error"`
	LeaseOwner *string    `bun:"lease_owner"`
	Key        string     `bun:"idempotency_key"`
	// RetryIn is next_attempt_at - now() in seconds.
	RetryIn float64 `bun:"retry_in"`
}

func state(t testing.TB, d *db.DB, id int64) rowState {
	t.Helper()
	var s rowState
	require.NoError(t, d.NewRaw(`SELECT attempts, sent_at, dead_at, last_error, lease_owner, idempotency_key,
		extract(epoch FROM next_attempt_at - now())::float8 AS retry_in FROM notifications WHERE id = ?`, id).Scan(context.Background(), &s))
	return s
}

// makeDue moves every pending row's next attempt to now, as time passing would.
func makeDue(t testing.TB, d *db.DB) {
	t.Helper()
	_, err := d.ExecContext(context.Background(), `UPDATE notifications SET next_attempt_at = now() WHERE sent_at IS NULL AND dead_at IS NULL`)
	require.NoError(t, err)
}

// plugins is the Notifiers the board would get from its plugin host.
type plugins map[string]notifier.Notifier

func (p plugins) Notifier(name string) (notifier.Notifier, error) {
	if n, ok := p[name]; ok {
		return n, nil
	}
	return nil, errs.E(errs.NotFound, "no plugin named %q in PACT_PLUGINS", name)
}

// recorder is a notifier that keeps what it is asked to deliver and fails
// the first `fail` deliveries with err.
type recorder struct {
	mu    sync.Mutex
	got   []delivery
	fail  int
	err   error
	calls int
}

type delivery struct {
	Dest notifier.Destination
	N    notifier.Notification
}

func (r *recorder) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "recorder", Version: "1", Structured: true}, nil
}

func (r *recorder) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return &d, nil
}

func (r *recorder) Deliver(_ context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls <= r.fail {
		return nil, r.err
	}
	r.got = append(r.got, delivery{Dest: d, N: n})
	return &notifier.Receipt{Status: 200}, nil
}

func (r *recorder) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// poster is a real notifier over HTTP, like the webhook plugin without the
// signing: it POSTs the notification as JSON with its idempotency key in a
// header, and maps the receiver's answer to the SDK's codes (5xx and 429
// unavailable, other 4xx invalid_request). PrepareDestination accepts only
// http(s) URLs and generates a whsec_ secret when none is given.
type poster struct{ client *http.Client }

func (p *poster) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "poster", Version: "1"}, nil
}

func (p *poster) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	if !strings.HasPrefix(d.URL, "http://") && !strings.HasPrefix(d.URL, "https://") {
		return nil, errs.E(errs.InvalidRequest, "a webhook URL must be http(s)")
	}
	if d.Secret == "" {
		b := make([]byte, 24)
		_, _ = rand.Read(b)
		d.Secret = "whsec_" + base64.StdEncoding.EncodeToString(b)
	}
	return &d, nil
}

func (p *poster) Deliver(ctx context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	body, _ := json.Marshal(n)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "bad URL: %v", err)
	}
	req.Header.Set("Idempotency-Key", n.IdempotencyKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, errs.E(errs.Unavailable, "post: %v", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	switch {
	case resp.StatusCode < 300:
		return &notifier.Receipt{Status: resp.StatusCode, Detail: string(answer)}, nil
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, errs.E(errs.Unavailable, "receiver answered %d: %s", resp.StatusCode, answer)
	default:
		return nil, errs.E(errs.InvalidRequest, "receiver answered %d: %s", resp.StatusCode, answer)
	}
}

// receiver is a local HTTP endpoint that counts deliveries per path and
// idempotency key.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	byKey  map[string]int
	byPath map[string]int
	total  int
	arrive chan string // each delivery's key, when someone listens
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{byKey: map[string]int{}, byPath: map[string]int{}, arrive: make(chan string, 100000)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.byKey[req.Header.Get("Idempotency-Key")]++
		r.byPath[req.URL.Path]++
		r.total++
		r.mu.Unlock()
		r.arrive <- req.Header.Get("Idempotency-Key")
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) counts() (byKey, byPath map[string]int, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byKey, byPath = map[string]int{}, map[string]int{}
	for k, v := range r.byKey {
		byKey[k] = v
	}
	for k, v := range r.byPath {
		byPath[k] = v
	}
	return byKey, byPath, r.total
}

// startProcess runs a board process with the notify module on w's
// database, over its own connection pool, until the test ends or Stop is
// called. env is the process's environment.
func startProcess(w *world, env map[string]string, opts notify.Options) *kerneltest.Process {
	w.T.Helper()
	return w.Process(env, notify.New(opts))
}

// eventually fails t unless cond holds within d.
// fallsToZero waits until count is zero, for at most d, and fails at once
// when count has not fallen for stall: work that makes no progress at all
// is reported then, not at d.
func fallsToZero(t testing.TB, d, stall time.Duration, count func() int, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	least, since := count(), time.Now()
	for least > 0 {
		switch {
		case time.Now().After(deadline):
			t.Fatalf("timed out after %v with %d left: %s", d, least, fmt.Sprintf(format, args...))
		case time.Since(since) > stall:
			t.Fatalf("%d left, and none settled in the last %v: %s", least, stall, fmt.Sprintf(format, args...))
		}
		time.Sleep(10 * time.Millisecond)
		if n := count(); n < least {
			least, since = n, time.Now()
		}
	}
}

func eventually(t testing.TB, d time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v: %s", d, fmt.Sprintf(format, args...))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runLogged runs a board of the notify module alone, with opts, on a fresh
// database that prepare (when given) readies before it starts, until the
// test ends; the board logs to the buffer returned, from Info up.
func runLogged(t *testing.T, opts notify.Options, prepare func(w *kerneltest.World)) (*kerneltest.World, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true, Logger: logger}, notify.New(opts))
	if prepare != nil {
		prepare(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Kernel.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w, logs
}
