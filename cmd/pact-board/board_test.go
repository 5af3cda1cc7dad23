package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/people"
)

func TestMain(m *testing.M) {
	installAdminErrors()
	pgtest.Main(m)
}

const testSigningKey = "test-signing-key-0123456789abcdefghijkl"

// startBoard runs the real board in-process on a free port, against a fresh
// test database. stop cancels its context (what SIGTERM does) and returns
// Run's error.
func startBoard(t *testing.T, extra map[string]string) (base string, logs *logtest.Buffer, stop func() error) {
	t.Helper()
	m, logs, stop := startMain(t, extra)
	return "http://" + m.Addr().String(), logs, stop
}

// startMain is startBoard returning the running Main.
func startMain(t *testing.T, extra map[string]string) (m *Main, logs *logtest.Buffer, stop func() error) {
	t.Helper()
	return startMainWith(t, extra, nil)
}

// startMainWith is startMain with setup changing the Main before it runs
// (Demo, Out).
func startMainWith(t *testing.T, extra map[string]string, setup func(*Main)) (m *Main, logs *logtest.Buffer, stop func() error) {
	t.Helper()
	vars := map[string]string{
		"DATABASE_URL":     pgtest.NewDSN(t),
		"PACT_SIGNING_KEY": testSigningKey,
		"PORT":             "0",
		"PACT_LOG_LEVEL":   "debug",
		// A test's stop needs no load balancer to see /readyz turn 503.
		"PACT_DRAIN_SECONDS": "0",
	}
	for k, v := range extra {
		vars[k] = v
	}
	cfg, err := boot.Load(func(k string) string { return vars[k] })
	require.NoError(t, err)
	logs = &logtest.Buffer{}
	m = NewMain(cfg, hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug}))
	if setup != nil {
		setup(m)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	select {
	case <-m.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("board did not start: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("board did not start within 30s\n%s", logs)
	}
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("board did not stop within 30s\n%s", logs)
			}
			runErr = errors.Join(runErr, m.Close())
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return m, logs, stop
}

func get(t *testing.T, url string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body), "body %q", raw)
	return resp, body
}

func TestBoardEndToEnd(t *testing.T) {
	base, logs, stop := startBoard(t, nil)

	resp, body := get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, map[string]any{"ok": true}, body)

	resp, body = get(t, base+"/readyz")
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	require.Equal(t, map[string]any{"ok": true}, body)

	resp, body = get(t, base+"/.well-known/pact-keys.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
	keys, ok := body["keys"].([]any)
	require.True(t, ok, "%v", body)
	require.NotEmpty(t, keys)
	for _, k := range keys {
		jwk := k.(map[string]any)
		require.Equal(t, "OKP", jwk["kty"])
		require.Equal(t, "Ed25519", jwk["crv"])
		require.NotEmpty(t, jwk["kid"])
		require.NotEmpty(t, jwk["x"])
		require.NotContains(t, jwk, "d", "a JWK must never carry the private part")
	}

	resp, body = get(t, base+"/mcp")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, map[string]any{"error": "not_found", "message": "use /mcp/a/<agent-id>"}, body)

	resp, body = get(t, base+"/admin/api/no/such/thing")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, map[string]any{"error": "not_found", "message": "no such admin route"}, body)

	resp, body = get(t, base+"/admin/api/openapi.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "3.1.0", body["openapi"])

	require.NoError(t, stop(), "a SIGTERM-style shutdown returns cleanly")
	require.Contains(t, logs.String(), "shutting down")
	require.Contains(t, logs.String(), "stopped")
	require.NotContains(t, logs.String(), testSigningKey, "the signing key is never logged")

	_, err := http.Get(base + "/healthz")
	require.Error(t, err, "the port is closed after shutdown")
}

func TestBoardKeysFromPactBoardKeys(t *testing.T) {
	base, _, _ := startBoard(t, map[string]string{
		"PACT_SIGNING_KEY": "",
		"PACT_BOARD_KEYS":  "new=" + strings.Repeat("A", 43) + ",old=" + strings.Repeat("B", 43),
	})
	_, body := get(t, base+"/.well-known/pact-keys.json")
	keys := body["keys"].([]any)
	require.Len(t, keys, 2)
	require.Equal(t, "new", keys[0].(map[string]any)["kid"], "the signing key comes first")
}

func TestBoardAdminService(t *testing.T) {
	base, _, _ := startBoard(t, map[string]string{"PACT_ROLE": "admin"})
	resp, body := get(t, base+"/.well-known/pact-keys.json")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "this service serves /admin/api only", body["message"])
	resp, _ = get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestBoardPortInUse(t *testing.T) {
	base, _, _ := startBoard(t, nil)
	port := base[strings.LastIndex(base, ":")+1:]
	var stderr bytes.Buffer
	code := run(context.Background(), nil, func(k string) string {
		return map[string]string{
			"DATABASE_URL": pgtest.NewDSN(t), "PACT_SIGNING_KEY": testSigningKey,
			"PORT": port, "PACT_LOG_LEVEL": "off",
		}[k]
	}, io.Discard, &stderr)
	require.Equal(t, 1, code)
	require.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
	require.Contains(t, stderr.String(), "pact-board: listen on 127.0.0.1:"+port)
}

// registerAgent registers an agent as pact-admin agent-register does:
// through modules/people, on the board's database, its root mandate signed
// with the board's key (testSigningKey).
func registerAgent(ctx context.Context, d *db.DB, ident *identity.Service, by string, in people.AgentInput) (*people.Registered, error) {
	return peopleOn(d, ident).RegisterAgent(ctx, by, in)
}

// peopleOn is modules/people's service on the board's database, signing
// with the board's key (testSigningKey), as pact-admin builds it.
func peopleOn(d *db.DB, ident *identity.Service) *people.Service {
	keys, err := mandate.ParseKeyring("", testSigningKey)
	if err != nil {
		panic(err) // a constant key
	}
	return people.NewService(d, ledger.New(nil), ident, mandate.NewService(keys, nil))
}
