package kernel_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/pgtest"
)

// TestMain does what cmd/pact-board's main does once: install the Admin
// API's error model.
func TestMain(m *testing.M) {
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	pgtest.Main(m)
}

// moduleFunc is a module made of a name and a Register function.
type moduleFunc struct {
	name string
	reg  func(h *kernel.Host) error
}

func (m moduleFunc) Name() string                  { return m.name }
func (m moduleFunc) Register(h *kernel.Host) error { return m.reg(h) }

func noop(name string) kernel.Module {
	return moduleFunc{name, func(*kernel.Host) error { return nil }}
}

func cfg(t *testing.T, kv map[string]string) *boot.Config {
	t.Helper()
	c, err := boot.Load(func(k string) string { return kv[k] })
	require.NoError(t, err)
	return c
}

// do serves one request and returns the status and the decoded JSON body.
func do(t *testing.T, h http.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	raw, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	var out map[string]any
	if len(raw) > 0 {
		require.NoError(t, json.Unmarshal(raw, &out), "body %q", raw)
		require.Contains(t, rec.Header().Get("Content-Type"), "json", "body %q", raw)
	}
	return rec.Code, out
}

func TestRegisterRefusesBadAndDuplicateNames(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	for _, bad := range []string{"", "Tasks", "1tasks", "task-s", "tasks.x"} {
		require.ErrorContains(t, k.Register(noop(bad)), "must match", bad)
	}
	require.NoError(t, k.Register(noop("tasks"), noop("notes")))
	require.ErrorContains(t, k.Register(noop("tasks")), "registered twice")
	require.Equal(t, []string{"tasks", "notes"}, k.Modules())
}

func TestRegisterReturnsModuleErrors(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	err := k.Register(moduleFunc{"broken", func(*kernel.Host) error { return errors.New("no config") }})
	require.EqualError(t, err, "module broken: no config")
}

func TestRegisterTurnsRouteConflictsIntoErrors(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	h := http.NotFoundHandler()
	require.NoError(t, k.Register(moduleFunc{"one", func(host *kernel.Host) error {
		host.Handle("POST /connect", h)
		return nil
	}}))
	err := k.Register(moduleFunc{"two", func(host *kernel.Host) error {
		host.Handle("POST /connect", h)
		return nil
	}})
	require.ErrorContains(t, err, "module two:")
	require.ErrorContains(t, err, "/connect")
}

func TestHostGivesModulesTheirDependencies(t *testing.T) {
	c := cfg(t, nil)
	d := pgtest.New(t)
	k := kernel.New(kernel.Deps{DB: d, Config: c})
	require.NoError(t, k.Register(moduleFunc{"probe", func(h *kernel.Host) error {
		require.Same(t, d, h.DB())
		require.Same(t, c, h.Config())
		require.Nil(t, h.Log())
		require.Equal(t, "probe", h.Module())
		require.NotNil(t, h.Logger())
		require.NotNil(t, h.Admin())
		return nil
	}}))
}

func TestRoutesListsEveryPattern(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(moduleFunc{"things", func(h *kernel.Host) error {
		h.Handle("POST /connect", http.NotFoundHandler())
		registerThing(h.Admin())
		return nil
	}}))
	routes := k.Routes()
	for _, want := range []string{
		"GET /healthz", "GET /readyz", "/admin/api/", "/",
		"POST /connect",
		"GET /admin/api/things/{id}",
		"GET /admin/api/openapi.json",
	} {
		require.Contains(t, routes, want)
	}
}

func TestHealthAndNotFound(t *testing.T) {
	h := kernel.New(kernel.Deps{}).Handler()

	code, body := do(t, h, "GET", "/healthz", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"ok": true}, body)

	code, body = do(t, h, "GET", "/mcp", "")
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, map[string]any{"error": "not_found", "message": "not found"}, body)

	code, body = do(t, h, "DELETE", "/admin/api/nothing/here", "")
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, map[string]any{"error": "not_found", "message": "no such admin route"}, body)
}

func TestReadyz(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		code, body := do(t, kernel.New(kernel.Deps{DB: pgtest.New(t)}).Handler(), "GET", "/readyz", "")
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, map[string]any{"ok": true}, body)
	})
	t.Run("NoDatabase", func(t *testing.T) {
		code, body := do(t, kernel.New(kernel.Deps{}).Handler(), "GET", "/readyz", "")
		require.Equal(t, http.StatusServiceUnavailable, code)
		require.Equal(t, "unavailable", body["error"])
	})
	t.Run("MigrationMissing", func(t *testing.T) {
		d := pgtest.New(t)
		_, err := d.ExecContext(ctx, "DELETE FROM schema_migrations WHERE name = '003_log.sql'")
		require.NoError(t, err)
		code, body := do(t, kernel.New(kernel.Deps{DB: d}).Handler(), "GET", "/readyz", "")
		require.Equal(t, http.StatusServiceUnavailable, code)
		require.Equal(t, "unavailable", body["error"])
		require.Equal(t, "migrations not applied: 003_log", body["message"])
	})
	t.Run("DatabaseClosed", func(t *testing.T) {
		d := pgtest.New(t)
		k := kernel.New(kernel.Deps{DB: d})
		d.Close()
		code, body := do(t, k.Handler(), "GET", "/readyz", "")
		require.Equal(t, http.StatusServiceUnavailable, code)
		require.Equal(t, "the database does not answer", body["message"])
	})
}

func TestRoleGate(t *testing.T) {
	t.Run("AdminAPIOff", func(t *testing.T) {
		h := kernel.New(kernel.Deps{Config: cfg(t, map[string]string{"PACT_ADMIN_API": "off"})}).Handler()
		code, body := do(t, h, "GET", "/admin/api/openapi.json", "")
		require.Equal(t, http.StatusNotFound, code)
		require.Equal(t, "the Admin API runs as its own service", body["message"])
	})
	t.Run("AdminService", func(t *testing.T) {
		h := kernel.New(kernel.Deps{Config: cfg(t, map[string]string{"PACT_ROLE": "admin"})}).Handler()
		code, body := do(t, h, "GET", "/.well-known/pact-keys.json", "")
		require.Equal(t, http.StatusNotFound, code)
		require.Equal(t, map[string]any{"error": "not_found", "message": "this service serves /admin/api only"}, body)
		code, _ = do(t, h, "GET", "/healthz", "")
		require.Equal(t, http.StatusOK, code)
		code, _ = do(t, h, "GET", "/admin/api/openapi.json", "")
		require.Equal(t, http.StatusOK, code)
	})
}

func TestPanicsBecomeInternalErrors(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(moduleFunc{"boom", func(h *kernel.Host) error {
		h.Handle("GET /boom", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret detail") }))
		return nil
	}}))
	code, body := do(t, k.Handler(), "GET", "/boom", "")
	require.Equal(t, http.StatusInternalServerError, code)
	require.Equal(t, "internal", body["error"])
	require.NotContains(t, body["message"], "secret")
}

// TestToolsMustRefuseUnknownArguments: a tool whose input schema would let
// unknown arguments through cannot be registered, and a registered tool's
// description ends with the rule (docs/specs/divergences.md, audit item 5).
func TestToolsMustRefuseUnknownArguments(t *testing.T) {
	r := kernel.NewTools(nil, nil, nil)
	run := func(context.Context, *kernel.Call) (any, error) { return nil, nil }
	open := kernel.Tool{Name: "demo_open", Effect: kernel.Reads, Title: "Open", Description: "Takes anything.", Run: run,
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"x": {Type: "string"}}}}
	require.ErrorContains(t, r.Add(open), "must refuse unknown arguments")
	closed := open
	closed.Name = "demo_closed"
	closed.Input = &jsonschema.Schema{Type: "object", Properties: open.Input.Properties,
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	require.NoError(t, r.Add(closed))
	require.Len(t, r.List(), 1)
	require.Equal(t, "Takes anything. "+kernel.UnknownArgumentsRule, r.List()[0].Description)
}
