package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// PostgreSQL cannot store U+0000 in text or jsonb, so a NUL anywhere in a
// call's arguments (a value, an item of a list, a key or value of a nested
// object, or JSON kept as sent) is refused as the caller's mistake, naming
// where it is, before the tool's body runs: nothing changes but the
// refusal's entry. A backslash followed by "u0000" is plain text and passes.
func TestArgumentsHoldingANULCharacterAreRefused(t *testing.T) {
	d, r := toolFixture(t)
	tool := freezeTool()
	tool.Name = "demo_note"
	tool.Input = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"text": {Type: "string"}, "list": {Type: "array", Items: &jsonschema.Schema{Type: "string"}}, "kept": {},
	}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	require.NoError(t, r.Add(tool))

	for args, where := range map[string]string{
		`{"text": "a\u0000b"}`:                  "arguments.text",
		`{"list": ["fine", "\u0000"]}`:          "arguments.list[]",
		`{"kept": {"deep": [{"x": "\u0000"}]}}`: "arguments.kept.deep[].x",
		`{"kept": {"k\u0000": 1}}`:              "a key of arguments.kept",
	} {
		_, err := r.Call(context.Background(), "code-web", "demo_note", json.RawMessage(args))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), args)
		e, _ := errs.As(err)
		require.Equal(t, where+` holds a NUL character (\u0000), which the board cannot store: remove it`, e.Message, args)
	}
	s := snapshot(t, d)
	require.False(t, s.Frozen, "no refused call's body ran")
	require.Equal(t, 4, s.Entries, "each refusal is logged")
	require.Equal(t, "invalid_request", *s.Outcome)

	_, err := r.Call(context.Background(), "code-web", "demo_note", json.RawMessage(`{"text": "a\\u0000b", "kept": {"n": 0}}`))
	require.NoError(t, err, "an escaped backslash before u0000 is text, not a NUL")
	require.True(t, snapshot(t, d).Frozen)
}

// The Admin API refuses U+0000 as the tools do, wherever a request carries
// text: in its JSON body (400, the detail naming where), its path or its
// query (%00). An escaped backslash before "u0000" in a body is text.
func TestAdminRequestsHoldingANULCharacterAreRefused(t *testing.T) {
	h := adminHandler(t)
	code, body := do(t, h, "POST", "/admin/api/things", `{"name": "a\u0000b"}`)
	require.Equal(t, http.StatusBadRequest, code, "%v", body)
	require.Equal(t, "invalid_request", body["error"])
	require.Contains(t, fmt.Sprint(body["details"]), `body.name holds a NUL character (\u0000), which the board cannot store: remove it`)

	for _, path := range []string{"/admin/api/things/a%00b", "/admin/api/things/ok?x=%00"} {
		code, body = do(t, h, "GET", path, "")
		require.Equal(t, http.StatusBadRequest, code, path)
		require.Equal(t, "invalid_request", body["error"], path)
		require.Contains(t, body["message"], "holds a NUL character (%00)", path)
	}

	code, body = do(t, h, "POST", "/admin/api/things", `{"name": "a\\u0000b"}`)
	require.Equal(t, http.StatusOK, code, "%v", body)
	require.Equal(t, `a\u0000b`, body["id"])
}

// A plain route (a module's, not the Admin API's) refuses U+0000 in its
// path or query before its handler runs, as the Admin API does: 400,
// invalid_request. Its own answers are untouched.
func TestPlainRoutesRefuseANULCharacterInTheirPathOrQuery(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	ran := 0
	require.NoError(t, k.Register(moduleFunc{"plain", func(h *kernel.Host) error {
		h.Handle("GET /plain/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ran++
			kernel.WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		}))
		return nil
	}}))
	h := k.Handler()
	for _, path := range []string{"/plain/a%00b", "/plain/%00", "/plain/ok?x=%00", "/plain/ok?%00=x"} {
		code, body := do(t, h, "GET", path, "")
		require.Equal(t, http.StatusBadRequest, code, path)
		require.Equal(t, map[string]any{"error": "invalid_request",
			"message": "the request's path or query holds a NUL character (%00), which the board cannot store: remove it"}, body, path)
	}
	require.Zero(t, ran, "no refused request reached the route")
	code, body := do(t, h, "GET", "/plain/ok?x=0", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"id": "ok"}, body)
}
