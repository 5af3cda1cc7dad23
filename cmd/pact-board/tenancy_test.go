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
	"human_id":        {"bo", "nobody"},
	"project_id":      {"rocket", "nowhere"},
	"agent_id":        {"rocket-bot", "no-bot"},
	"role_id":         {"rocketeer", "no-role"}, // role ids repeat per organization: rocketeer is acme's alone
	"task_id":         {"a0000000-0000-4000-8000-00000000000a", "b0000000-0000-4000-8000-00000000000b"},
	"entry_id":        {"900000001", "900000002"},
	"mandate_id":      {"c0000000-0000-4000-8000-00000000000c", "d0000000-0000-4000-8000-00000000000d"},
	"key":             {"plan", "nokey"},
	"version_id":      {"900000011", "900000012"},
	"kid":             {"cs1uhCLEB_ttCYaQ", "AAAAAAAAAAAAAAAA"},
	"principal":       {"AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI", "AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM"},
	"pact_id":         {"e0000000-0000-4000-8000-0000000000e1", "f0000000-0000-4000-8000-0000000000f1"},
	"decision_id":     {"e0000000-0000-4000-8000-0000000000e2", "f0000000-0000-4000-8000-0000000000f2"},
	"seat":            {"@rocket-bot", "@nobody"},
	"destination_id":  {"900000031", "900000032"},
	"notification_id": {"900000041", "900000042"},
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
	_, err = a.ident.AcceptInvitation(ctx, a.d, "ana", "ana@example.com", a.iss.URL, "sub-ana")
	require.NoError(t, err)
	_, err = a.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	require.NoError(t, err)
	// acme's task (with its agent and mandate) and log entry.
	_, err = a.d.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client) VALUES ('tasker-rocket', 'acme', 'bo', 'code');
		INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('tasker-rocket', 'rocket', 'acme');
		INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth, expires_at, signature)
			VALUES ('a0000000-0000-4000-8000-0000000000aa', 'human', 'bo', 'tasker-rocket', '{task.work@project:rocket}', 1, 0,
				now() + interval '1 day', 'x');
		INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status) VALUES ('a0000000-0000-4000-8000-00000000000a',
			'rocket', 'Acme task', 'tasker-rocket', 'a0000000-0000-4000-8000-0000000000aa', 'auth_required');
		INSERT INTO payloads (id, content) VALUES ('a0000000-0000-4000-8000-0000000000ee', '{"secret": "acme"}');
		INSERT INTO entries (id, org_id, chain_key, actor, action, payload_hash, payload_ref, outcome, at)
			VALUES (900000001, 'acme', '_system:acme', 'human:bo', 'seed', 'h', 'a0000000-0000-4000-8000-0000000000ee', 'ok', now());
		INSERT INTO entry_places (chain_key, seq, entry_id, prev_hash, hash) VALUES ('_system:acme', 1000000, 900000001, 'p', 'h');`)
	require.NoError(t, err)
	// acme's hired agent and a role only acme has.
	_, err = a.d.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, client, actions) VALUES ('acme', 'rocketeer', 'Rocketeer', 'code', '{task.read}');
		INSERT INTO agents (id, org_id, owner, client, role_id) VALUES ('rocket-bot', 'acme', 'bo', 'code', 'rocketeer');`)
	require.NoError(t, err)
	// acme's root mandate and a note with its version.
	_, err = a.d.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client) VALUES ('holder-rocket', 'acme', 'bo', 'code');
		INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('holder-rocket', 'rocket', 'acme');
		INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth, expires_at, signature)
			VALUES ('c0000000-0000-4000-8000-00000000000c', 'human', 'bo', 'holder-rocket', '{task.read@project:rocket}', 1, 0,
				now() + interval '1 day', 'x');
		UPDATE agents SET root_mandate_id = 'c0000000-0000-4000-8000-00000000000c' WHERE id = 'holder-rocket';
		INSERT INTO context_notes (project_id, key, title, body, version, updated_by) VALUES ('rocket', 'plan', 'Plan', 'Go', 1, 'human:bo');
		INSERT INTO context_note_versions (id, project_id, key, version, title, body, updated_by)
			VALUES (900000011, 'rocket', 'plan', 1, 'Plan', 'Go', 'human:bo');`)
	require.NoError(t, err)
	// acme's agent key and trusted root.
	_, err = a.d.ExecContext(ctx, `INSERT INTO agent_keys (agent_id, org_id, kid, public_key, created_by)
			VALUES ('rocket-bot', 'acme', 'cs1uhCLEB_ttCYaQ', decode(repeat('01', 32), 'hex'), 'bo');
		INSERT INTO trusted_roots (principal, org_id, human, created_by) VALUES (decode(repeat('02', 32), 'hex'), 'acme', 'bo', 'bo');`)
	require.NoError(t, err)
	// acme's pact, with a seat and an open decision.
	_, err = a.d.ExecContext(ctx, `INSERT INTO pacts (id, org_id, project_id, name, purpose, owner_human, created_by)
			VALUES ('e0000000-0000-4000-8000-0000000000e1', 'acme', 'rocket', 'Launch', 'Go', 'bo', 'human:bo');
		INSERT INTO pact_seats (pact_id, key, display_name, prefix, agent_id, invited_by, joined_at)
			VALUES ('e0000000-0000-4000-8000-0000000000e1', '@rocket-bot', 'Rocket bot', 'R', 'rocket-bot', 'human:bo', now());
		INSERT INTO pact_sections (pact_id, seat_key) VALUES ('e0000000-0000-4000-8000-0000000000e1', '@rocket-bot');
		INSERT INTO pact_feed (id, pact_id, kind, actor) VALUES (900000021, 'e0000000-0000-4000-8000-0000000000e1', 'decision', 'agent:rocket-bot');
		INSERT INTO pact_decisions (id, pact_id, seat_key, raised_by, question, options, feed_id)
			VALUES ('e0000000-0000-4000-8000-0000000000e2', 'e0000000-0000-4000-8000-0000000000e1', '@rocket-bot',
				'agent:rocket-bot', 'Go?', '{Go}', 900000021);`)
	require.NoError(t, err)
	// acme's notification destination.
	_, err = a.d.ExecContext(ctx, `INSERT INTO notify_destinations (id, org_id, notifier, url, created_by)
		VALUES (900000031, 'acme', 'webhook', 'https://acme.example/hook', 'bo')`)
	require.NoError(t, err)
	// acme's notification, in bo's inbox.
	_, err = a.d.ExecContext(ctx, `INSERT INTO notifications (id, org_id, kind, project_id, title)
			VALUES (900000041, 'acme', 'brief', 'rocket', 'Acme news');
		INSERT INTO inbox (notification_id, human_id, org_id) VALUES (900000041, 'bo', 'acme');`)
	require.NoError(t, err)
	token := a.iss.Token(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true,
		Audience: []string{a.cfg.AdminAudience}})
	stranger := a.iss.Token(t, authtest.Claims{Subject: "sub-stranger", Email: "stranger@example.com", EmailVerified: true,
		Audience: []string{a.cfg.AdminAudience}})
	snapshot := func() string {
		var s string
		require.NoError(t, a.d.NewRaw(`SELECT concat(
			(SELECT json_agg(o ORDER BY id) FROM orgs o WHERE id = 'acme'),
			(SELECT json_agg(h ORDER BY id) FROM humans h WHERE org_id = 'acme'),
			(SELECT json_agg(p ORDER BY id) FROM projects p WHERE org_id = 'acme'),
			(SELECT json_agg(g ORDER BY id) FROM agents g WHERE org_id = 'acme'),
			(SELECT json_agg(r ORDER BY id) FROM agent_roles r WHERE org_id = 'acme'),
			(SELECT json_agg(t ORDER BY id) FROM tasks t WHERE project_id = 'rocket'),
			(SELECT json_agg(p) FROM payloads p WHERE id = 'a0000000-0000-4000-8000-0000000000ee'),
			(SELECT json_agg(m ORDER BY id) FROM mandates m WHERE holder = 'holder-rocket'),
			(SELECT json_agg(a ORDER BY id) FROM agents a WHERE id = 'holder-rocket'),
			(SELECT json_agg(n ORDER BY key) FROM context_notes n WHERE project_id = 'rocket'),
			(SELECT json_agg(v ORDER BY id) FROM context_note_versions v WHERE project_id = 'rocket'),
			(SELECT json_agg(k ORDER BY kid) FROM agent_keys k WHERE agent_id = 'rocket-bot'),
			(SELECT json_agg(r) FROM trusted_roots r WHERE org_id = 'acme'),
			(SELECT json_agg(p) FROM pacts p WHERE org_id = 'acme'),
			(SELECT json_agg(s) FROM pact_seats s WHERE pact_id = 'e0000000-0000-4000-8000-0000000000e1'),
			(SELECT json_agg(s) FROM pact_sections s WHERE pact_id = 'e0000000-0000-4000-8000-0000000000e1'),
			(SELECT json_agg(d) FROM pact_decisions d WHERE pact_id = 'e0000000-0000-4000-8000-0000000000e1'),
			(SELECT count(*) FROM pact_feed WHERE pact_id = 'e0000000-0000-4000-8000-0000000000e1'),
			(SELECT json_agg(d) FROM notify_destinations d WHERE org_id = 'acme'))`).Scan(ctx, &s))
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
				caller := token
				if op.OperationID == "people-accept-invitation" {
					// Its callers are accounts that are no person yet.
					caller = stranger
				}
				fs, fb := send(t, a.URL, caller, strings.ToUpper(method), foreign, body)
				ms, mb := send(t, a.URL, caller, strings.ToUpper(method), missing, body)
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

// send calls path on base with token and returns the status and the body.
func send(t *testing.T, base, token, method, path, body string) (int, string) {
	t.Helper()
	return httpCall(t, method, base+path, http.Header{"Authorization": {"Bearer " + token}}, body)
}

// httpCall sends body (JSON, "" for none) to url with header and returns
// the status and the body.
func httpCall(t *testing.T, method, url string, header http.Header, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, r)
	require.NoError(t, err)
	for k, v := range header {
		req.Header[k] = v
	}
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
