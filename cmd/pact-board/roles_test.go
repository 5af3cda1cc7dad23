package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// roleRefusal is the words of a refusal by role, the gate's and a
// service's alike (docs/specs/behavior.md §10.1).
var roleRefusal = regexp.MustCompile(`^\S+ is (viewer|approver|owner); this needs (viewer|approver|owner)$`)

// Every operation of docs/openapi.json, called by each member of
// kerneltest.Staff(), is allowed or refused by role as the document
// states its least role (ADMIN-004): a member below it gets exactly the
// gate's refusal, one at or above it no refusal by role, neither from the
// gate nor from the service behind it. The population is the document:
// an operation added later is called by construction, and one whose least
// role this test does not know, or whose path parameter has no id in
// tenancyIDs, fails saying so. Path parameters take ids nobody has and
// bodies a small valid sample (sampleBody), so a call that passes the gate
// mostly ends in 400, 404 or 422; what each module's operations do for
// each role with real rows is its own ForEachRole test's.
func TestEveryDocumentedOperationForEachRole(t *testing.T) {
	a := newAdminBoard(t)
	a.Office() // ana (owner), val (approver), vic (viewer)
	staff := kerneltest.Staff()
	doc := parse(t, mustRead(t, openAPIFile))
	called := 0
	for path, methods := range doc.Paths {
		for method, op := range methods {
			var least identity.Role
			switch op.LeastRole {
			case "viewer", "approver", "owner":
				least = identity.Role(op.LeastRole)
			case kernel.AnyAccount:
			default:
				t.Fatalf("%s: least role %q is unhandled here: say what each role may do", op.OperationID, op.LeastRole)
			}
			target := strings.TrimPrefix(path, "/admin/api")
			for _, p := range op.Parameters {
				if p.In == "path" {
					ids, ok := tenancyIDs[p.Name]
					require.True(t, ok, "no id for path parameter %q of %s: add a row to tenancyIDs", p.Name, op.OperationID)
					target = strings.ReplaceAll(target, "{"+p.Name+"}", ids.missing)
				}
			}
			body := ""
			if op.RequestBody != nil {
				ref := op.RequestBody.Content["application/json"].Schema.Ref
				body = sampleBody(t, doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")])
			}
			for _, m := range staff {
				status, reply := adminCall(t, a.URL, a.AdminToken(m.ID), strings.ToUpper(method), target, body)
				what := fmt.Sprintf("%s (%s) as %s (%s): %d %v", op.OperationID, op.LeastRole, m.ID, m.Role, status, reply)
				if least != "" && !m.Role.AtLeast(least) {
					require.Equal(t, http.StatusForbidden, status, what)
					require.Equal(t, map[string]any{"error": "forbidden",
						"message": fmt.Sprintf("%s is %s; this needs %s", m.ID, m.Role, least)}, reply, what)
					continue
				}
				require.NotEqual(t, http.StatusUnauthorized, status, what)
				msg, _ := reply["message"].(string)
				require.False(t, status == http.StatusForbidden && roleRefusal.MatchString(msg), "allowed, yet refused by role: %s", what)
			}
			called++
		}
	}
	require.Greater(t, called, 50, "docs/openapi.json has its operations")
}

// adminCall calls the Admin API with token and returns the status and the
// JSON answer; a stream (text/event-stream) that opens is left at its
// headers.
func adminCall(t *testing.T, base, token, method, path, body string) (int, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+"/admin/api"+path, r)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		return resp.StatusCode, nil
	}
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}
