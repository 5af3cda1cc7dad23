package kernel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

type thingOut struct {
	Body struct {
		ID string `json:"id"`
	}
}

type thingIn struct {
	Body struct {
		Name string `json:"name" minLength:"1"`
	}
}

// public marks the test operations as authenticating themselves: these
// tests are about the error model, adminauth_test.go about the gate.
var public = map[string]any{kernel.MetaPublic: true}

// registerThing adds operations whose handlers fail in every way a module's can.
func registerThing(api huma.API) {
	huma.Register(api, huma.Operation{OperationID: "things-get", Method: http.MethodGet, Path: "/things/{id}", Metadata: public},
		func(ctx context.Context, in *struct {
			ID string `path:"id"`
		}) (*thingOut, error) {
			switch in.ID {
			case "missing":
				return nil, errs.E(errs.NotFound, "no thing %s", in.ID)
			case "taken":
				return nil, errs.E(errs.IDTaken, "thing id taken")
			case "chain":
				return nil, fmt.Errorf("verify: %w", errs.Mandate(errs.ChainBroken, "m-1", "bad signature"))
			case "bug":
				return nil, errors.New("pq: password=hunter2")
			case "wrapped":
				return nil, errs.Wrap(errors.New("pq: password=hunter2"), "load thing")
			case "down":
				return nil, errs.E(errs.Unavailable, "the notifier plugin is down")
			case "forbid":
				return nil, huma.Error403Forbidden("viewers cannot do that")
			}
			out := &thingOut{}
			out.Body.ID = in.ID
			return out, nil
		})
	huma.Register(api, huma.Operation{OperationID: "things-create", Method: http.MethodPost, Path: "/things", Metadata: public},
		func(ctx context.Context, in *thingIn) (*thingOut, error) {
			out := &thingOut{}
			out.Body.ID = in.Body.Name
			return out, nil
		})
}

func adminHandler(t *testing.T) http.Handler {
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(moduleFunc{"things", func(h *kernel.Host) error {
		registerThing(h.Admin())
		return nil
	}}))
	return k.Handler()
}

func TestAdminErrors(t *testing.T) {
	h := adminHandler(t)
	for _, tt := range []struct {
		path   string
		status int
		want   map[string]any
	}{
		{"/admin/api/things/ok", 200, map[string]any{"id": "ok"}},
		{"/admin/api/things/missing", 404, map[string]any{"error": "not_found", "message": "no thing missing"}},
		{"/admin/api/things/taken", 409, map[string]any{"error": "id_taken", "message": "thing id taken"}},
		{"/admin/api/things/chain", 409, map[string]any{"error": "chain_broken", "message": "bad signature", "mandate_id": "m-1"}},
		{"/admin/api/things/bug", 500, map[string]any{"error": "internal", "message": errs.Public(nil).Message}},
		{"/admin/api/things/wrapped", 500, map[string]any{"error": "internal", "message": errs.Public(nil).Message}},
		{"/admin/api/things/down", 503, map[string]any{"error": "unavailable", "message": "the notifier plugin is down"}},
		{"/admin/api/things/forbid", 403, map[string]any{"error": "forbidden", "message": "viewers cannot do that"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			code, body := do(t, h, "GET", tt.path, "")
			require.Equal(t, tt.status, code)
			require.Equal(t, tt.want, body)
		})
	}
}

func TestAdminValidationErrors(t *testing.T) {
	h := adminHandler(t)
	code, body := do(t, h, "POST", "/admin/api/things", `{"name": ""}`)
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Equal(t, "invalid_request", body["error"])
	require.Equal(t, "validation failed", body["message"])
	require.NotEmpty(t, body["details"])

	code, body = do(t, h, "POST", "/admin/api/things", `{not json`)
	require.Equal(t, http.StatusBadRequest, code)
	require.Equal(t, "invalid_request", body["error"])
}

// docs/specs/behavior.md §2.1, plus the codes this implementation adds.
func TestAdminStatusMap(t *testing.T) {
	want := map[errs.Code]int{
		errs.Forbidden: 403, errs.NotFound: 404, errs.InvalidRequest: 400, errs.ProjectRequired: 400,
		errs.ProjectMismatch: 400, errs.ScopeExceeded: 400, errs.LimitExceeded: 400, errs.NotePinned: 409,
		errs.IDTaken: 409, errs.NotRegistered: 403, errs.AccountDisabled: 403, errs.AlreadyRegistered: 409,
		errs.SignupClosed: 403, errs.SignupBusy: 429, errs.RateLimited: 429,
		errs.Unauthorized: 401, errs.Unavailable: 503, errs.Internal: 500, errs.TooLarge: 413, errs.MethodNotAllowed: 405,
	}
	for _, code := range errs.All() {
		status, named := want[code]
		if !named {
			status = http.StatusConflict
		}
		require.Equal(t, status, kernel.AdminStatus(code), code)
	}
}

func TestToAdminError(t *testing.T) {
	require.Nil(t, kernel.ToAdminError(nil))
	e := kernel.ToAdminError(errs.E(errs.SignupBusy, "try later"))
	require.Equal(t, http.StatusTooManyRequests, e.GetStatus())
	body, err := json.Marshal(e)
	require.NoError(t, err)
	require.JSONEq(t, `{"error":"signup_busy","message":"try later"}`, string(body))

	again := kernel.ToAdminError(fmt.Errorf("context: %w", e))
	require.Same(t, e, again, "an AdminError passes through")

	ct, ok := e.(huma.ContentTypeFilter)
	require.True(t, ok)
	require.Equal(t, "application/json", ct.ContentType("application/problem+json"))
}

func TestOpenAPIDocument(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(moduleFunc{"things", func(h *kernel.Host) error {
		registerThing(h.Admin())
		return nil
	}}))
	doc := k.OpenAPI()
	require.Contains(t, doc.Paths, "/admin/api/things/{id}")
	require.Contains(t, doc.Components.SecuritySchemes, "bearer")
	require.Contains(t, doc.Components.SecuritySchemes, kernel.ConsoleSecurity)
	require.Contains(t, doc.Components.Schemas.Map(), "AdminError")

	rec := httptest.NewRecorder()
	k.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/admin/api/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"title":"PACT Board Admin API"`)

	rec = httptest.NewRecorder()
	k.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/admin/api/things/ok", nil))
	require.NotContains(t, rec.Body.String(), "$schema", "no schema links in bodies")
	require.Empty(t, rec.Header().Get("Link"))
}

func TestWriteError(t *testing.T) {
	rec := httptest.NewRecorder()
	kernel.WriteError(rec, http.StatusForbidden, errs.E(errs.Forbidden, "no"))
	require.JSONEq(t, `{"error":"forbidden","message":"no"}`, rec.Body.String())
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))

	rec = httptest.NewRecorder()
	kernel.WriteError(rec, http.StatusConflict, errs.Mandate(errs.MandateRevoked, "m-2", "revoked"))
	require.Equal(t, http.StatusConflict, rec.Code)
	require.JSONEq(t, `{"error":"mandate_revoked","message":"revoked","mandate_id":"m-2"}`, rec.Body.String())
}

// docs/errors.md states each code's Admin HTTP status; AdminStatus must agree.
func TestErrorsDocMatchesAdminStatus(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "errors.md"))
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9]{3}) \\|")
	seen := 0
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		status, err := strconv.Atoi(m[2])
		require.NoError(t, err)
		require.Equal(t, status, kernel.AdminStatus(errs.Code(m[1])), "docs/errors.md row %s", m[1])
		seen++
	}
	require.Equal(t, len(errs.All()), seen, "every code has a row")
}

// An internal error's cause never reaches the caller but does reach the log.
func TestAdminInternalErrorsAreLogged(t *testing.T) {
	var logs bytes.Buffer
	k := kernel.New(kernel.Deps{Logger: hclog.New(&hclog.LoggerOptions{Output: &logs})})
	require.NoError(t, k.Register(moduleFunc{"things", func(h *kernel.Host) error {
		registerThing(h.Admin())
		return nil
	}}))
	code, body := do(t, k.Handler(), "GET", "/admin/api/things/bug", "")
	require.Equal(t, http.StatusInternalServerError, code)
	require.NotContains(t, body["message"], "hunter2")
	require.Contains(t, logs.String(), "admin call failed")
	require.Contains(t, logs.String(), "operation=things-get")
	require.Contains(t, logs.String(), "hunter2")
}
