package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/identity"
)

// tenancyIDs names, for each path parameter of the Admin API, an id that
// organization acme owns and a well-formed id nobody has. A new route with
// a new parameter fails TestTenancy until it gets a row here.
var tenancyIDs = map[string]struct{ foreign, missing string }{
	"human_id":   {"bo", "nobody"},
	"project_id": {"rocket", "nowhere"},
}

// TestTenancy walks every operation of docs/openapi.json that takes a path
// parameter and calls it as an owner of organization default, once with
// acme's id and once with a missing one: the answers must be the same 400
// or 404, word for word but for the id, and acme's rows must not change.
func TestTenancy(t *testing.T) {
	ctx := context.Background()
	a := newAdminBoard(t)
	_, err := a.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	_, err = a.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	require.NoError(t, err)
	token := a.iss.Token(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true,
		Audience: []string{a.cfg.AdminAudience}})
	snapshot := func() string {
		var s string
		require.NoError(t, a.d.NewRaw(`SELECT concat(
			(SELECT json_agg(o ORDER BY id) FROM orgs o WHERE id = 'acme'),
			(SELECT json_agg(h ORDER BY id) FROM humans h WHERE org_id = 'acme'),
			(SELECT json_agg(p ORDER BY id) FROM projects p WHERE org_id = 'acme'))`).Scan(ctx, &s))
		return s
	}
	before := snapshot()

	doc := parse(t, mustRead(t, openAPIFile))
	walked := 0
	for path, methods := range doc.Paths {
		for method, op := range methods {
			var params []string
			for _, p := range op.Parameters {
				if p.In == "path" {
					params = append(params, p.Name)
				}
			}
			if len(params) == 0 {
				continue
			}
			walked++
			t.Run(op.OperationID, func(t *testing.T) {
				foreign, missing := path, path
				var foreignIDs, missingIDs []string
				for _, name := range params {
					ids, ok := tenancyIDs[name]
					require.True(t, ok, "no ids for path parameter %q of %s: add a row to tenancyIDs", name, op.OperationID)
					foreign = strings.ReplaceAll(foreign, "{"+name+"}", ids.foreign)
					missing = strings.ReplaceAll(missing, "{"+name+"}", ids.missing)
					foreignIDs, missingIDs = append(foreignIDs, ids.foreign), append(missingIDs, ids.missing)
				}
				body := ""
				if op.RequestBody != nil {
					ref := op.RequestBody.Content["application/json"].Schema.Ref
					body = sampleBody(t, doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")])
				}
				fs, fb := send(t, a.server.URL, token, strings.ToUpper(method), foreign, body)
				ms, mb := send(t, a.server.URL, token, strings.ToUpper(method), missing, body)
				require.Contains(t, []int{http.StatusBadRequest, http.StatusNotFound}, ms, "%s %s: %s", method, missing, mb)
				require.Equal(t, ms, fs, "%s %s: %s", method, foreign, fb)
				for i := range foreignIDs {
					fb, mb = strings.ReplaceAll(fb, foreignIDs[i], "<id>"), strings.ReplaceAll(mb, missingIDs[i], "<id>")
				}
				require.Equal(t, mb, fb)
			})
		}
	}
	require.Positive(t, walked, "docs/openapi.json has operations with path parameters")
	require.Equal(t, before, snapshot(), "another organization's rows never change")
}

// sampleBody is a small valid body for s: its required properties and its
// first optional one, each with a plain value of its type.
func sampleBody(t *testing.T, s schema) string {
	t.Helper()
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	body := map[string]any{}
	optional := false
	for _, name := range names {
		required := slices.Contains(s.Required, name)
		if !required && optional {
			continue
		}
		optional = optional || !required
		body[name] = sample(s.Properties[name])
	}
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	return string(raw)
}

func sample(s schema) any {
	switch {
	case len(s.Examples) > 0:
		return s.Examples[0]
	case len(s.Enum) > 0:
		return s.Enum[0]
	}
	typ, _ := s.Type.(string)
	if list, ok := s.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "boolean":
		return true
	case "integer", "number":
		return 1
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "Sample"
}

func send(t *testing.T, base, token, method, path, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, r)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(raw)
}
