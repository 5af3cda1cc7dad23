package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth"
	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/audit"
	"github.com/pactboard/pact/sdk/plugintest"
)

func TestMain(m *testing.M) {
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	pgtest.Main(m)
}

// board is a kernel with the audit module over a real database, behind a
// real HTTP server, with people signing in through a real issuer; ana (owner),
// val (approver) and vic (viewer) are of organization default, bo of acme.
type board struct {
	d      *db.DB
	ident  *identity.Service
	mod    *audit.Module
	log    *ledger.Log
	iss    *authtest.Issuer
	cfg    *boot.Config
	server *httptest.Server
	// acmeEntry is an entry of acme's.
	acmeEntry int64
}

func newBoard(t *testing.T) *board {
	t.Helper()
	ctx := context.Background()
	b := &board{d: pgtest.New(t), iss: authtest.New(t), mod: audit.New(), log: ledger.New(nil)}
	var err error
	b.cfg, err = boot.Load(func(string) string { return "" })
	require.NoError(t, err)
	keys, err := mandate.ParseKeyring("", strings.Repeat("s", 32))
	require.NoError(t, err)
	log := b.log
	mandates := mandate.NewService(keys, nil)
	b.ident = identity.NewService(b.d, log, mandates, nil)
	admin := auth.NewAdmin(b.ident, auth.Options{Issuer: plugintest.Issuer(t, b.iss), Audience: b.cfg.AdminAudience, RequireMFA: true})
	k := kernel.New(kernel.Deps{DB: b.d, Log: log, Mandates: mandates, Identity: b.ident, Config: b.cfg, AdminAuth: admin})
	require.NoError(t, k.Register(b.mod))
	b.server = httptest.NewServer(k.Handler())
	t.Cleanup(b.server.Close)

	_, err = b.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	for _, h := range []struct {
		id   string
		role identity.Role
	}{{"val", identity.Approver}, {"vic", identity.Viewer}} {
		_, err = b.ident.AddHuman(ctx, "ana", identity.HumanInput{ID: h.id, Name: h.id, Role: h.role, Email: h.id + "@example.com"})
		require.NoError(t, err)
	}
	_, err = b.ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	_, err = b.ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = b.ident.AddProject(ctx, "vic", "nope", "Nope", false)
	require.Error(t, err, "a refusal, logged")

	_, err = b.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com')`)
	require.NoError(t, err)
	_, err = b.ident.AddProject(ctx, "bo", "rocket", "Rocket secret", false)
	require.NoError(t, err)
	require.NoError(t, b.d.NewRaw(`SELECT max(id) FROM entries WHERE org_id = 'acme'`).Scan(ctx, &b.acmeEntry))
	return b
}

type reply struct {
	status int
	raw    string
	body   map[string]any
}

// call sends body (JSON text, or "" for none) as person as.
func (b *board) call(t *testing.T, as, method, path, body string) reply {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.server.URL+"/admin/api"+path, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+b.iss.Token(t, authtest.Claims{Subject: "sub-" + as, Email: as + "@example.com",
		EmailVerified: true, Audience: []string{b.cfg.AdminAudience}}))
	resp, err := b.server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := reply{status: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (b *board) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

// entries lists GET /entries?query as vic and returns the entries.
func (b *board) entries(t *testing.T, query string) []map[string]any {
	t.Helper()
	got := b.call(t, "vic", "GET", "/entries?"+query, "")
	require.Equal(t, 200, got.status, got.raw)
	var out []map[string]any
	for _, e := range got.body["entries"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

func TestListEntries(t *testing.T) {
	b := newBoard(t)
	all := b.entries(t, "")
	require.Equal(t, b.count(t, `SELECT count(*) FROM entries WHERE org_id = 'default'`), len(all), "only the caller's organization")
	for i := 1; i < len(all); i++ {
		require.Greater(t, all[i-1]["id"], all[i]["id"], "newest first")
	}
	for _, e := range all {
		require.NotEqual(t, "bo", strings.TrimPrefix(e["actor"].(string), "human:"))
		require.Equal(t, false, e["payload_erased"])
		require.NotNil(t, e["payload"])
	}

	web := b.entries(t, "project=web")
	require.NotEmpty(t, web)
	for _, e := range web {
		require.Equal(t, "web", e["project_id"])
	}
	reg := b.entries(t, "action=admin.agent.register")
	require.Len(t, reg, 1)
	require.Equal(t, "code-web", reg[0]["agent_id"])
	require.Len(t, b.entries(t, "agent=code-web"), len(b.entries(t, "agent=code-web&limit=500")))
	for _, e := range b.entries(t, "agent=code-web") {
		require.Equal(t, "code-web", e["agent_id"])
	}
	refused := b.entries(t, "refused=1")
	require.Len(t, refused, 1)
	require.Equal(t, "forbidden", refused[0]["outcome"])
	require.Len(t, b.entries(t, "outcome=forbidden"), 1)
	require.Len(t, b.entries(t, "limit=2"), 2)
	older := b.entries(t, fmt.Sprintf("before=%v", all[1]["id"]))
	require.Len(t, older, len(all)-2)
	require.Empty(t, b.entries(t, "task=33333333-3333-4333-8333-333333333333"))
	require.Empty(t, b.entries(t, "project=rocket"), "acme's project reads as empty")

	hourAgo, inAnHour := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	require.Len(t, b.entries(t, "from="+url.QueryEscape(hourAgo.Format(time.RFC3339))), len(all))
	require.Empty(t, b.entries(t, "from="+url.QueryEscape(inAnHour.Format(time.RFC3339))))
	require.Empty(t, b.entries(t, "to="+url.QueryEscape(hourAgo.Format(time.RFC3339))))
	plus := hourAgo.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05") + "+02:00"
	require.Len(t, b.entries(t, "from="+plus), len(all), "an unescaped + arrives as a space and reads as +")
}

func TestListEntriesBadInput(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"from=2026-01-01T00:00:00", http.StatusBadRequest},
		{"to=2026-01-01", http.StatusBadRequest},
		{"from=yesterday", http.StatusBadRequest},
		{"task=not-a-task", http.StatusBadRequest},
		{"limit=501", http.StatusUnprocessableEntity},
		{"limit=100000000000000000000", http.StatusUnprocessableEntity},
		{"limit=0", http.StatusUnprocessableEntity},
		{"before=x", http.StatusUnprocessableEntity},
		{"refused=maybe", http.StatusUnprocessableEntity},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got := b.call(t, "vic", "GET", "/entries?"+tc.query, "")
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, "invalid_request", got.body["error"], got.raw)
		})
	}
}

func TestEraseEntry(t *testing.T) {
	b := newBoard(t)
	id := b.entries(t, "action=admin.project.add")[0]["id"]
	path := fmt.Sprintf("/entries/%v/erase", id)
	got := b.call(t, "ana", "POST", path, "")
	require.Equal(t, 200, got.status, got.raw)
	require.JSONEq(t, `{"erased": true}`, got.raw)
	e := b.entries(t, "action=admin.project.add")[0]
	require.Equal(t, true, e["payload_erased"])
	require.Nil(t, e["payload"])
	require.JSONEq(t, `{"erased": false}`, b.call(t, "ana", "POST", path, "").raw, "erased before")
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.payload.erase' AND outcome = 'ok'`), "each erasure is logged")

	got = b.call(t, "ana", "GET", "/log/verify", "")
	require.Equal(t, 200, got.status, got.raw)
	for _, v := range got.body["verdicts"].([]any) {
		require.Equal(t, true, v.(map[string]any)["ok"], "an erased payload still verifies")
	}

	other := b.call(t, "ana", "POST", fmt.Sprintf("/entries/%d/erase", b.acmeEntry), "")
	missing := b.call(t, "ana", "POST", "/entries/900000000/erase", "")
	require.Equal(t, http.StatusNotFound, other.status, other.raw)
	require.Equal(t, strings.ReplaceAll(missing.raw, "900000000", "?"), strings.ReplaceAll(other.raw, fmt.Sprint(b.acmeEntry), "?"))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM payloads p JOIN entries e ON e.payload_ref = p.id
		WHERE e.org_id = 'acme' AND p.erased_at IS NOT NULL`), "acme's payloads stay")

	for _, bad := range []string{"/entries/0/erase", "/entries/x/erase", "/entries/-3/erase"} {
		got := b.call(t, "ana", "POST", bad, "")
		require.Equal(t, http.StatusUnprocessableEntity, got.status, got.raw)
		require.Equal(t, "invalid_request", got.body["error"])
	}
}

func TestVerifyLog(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "vic", "GET", "/log/verify", "")
	require.Equal(t, 200, got.status, got.raw)
	var keys []string
	for _, v := range got.body["verdicts"].([]any) {
		v := v.(map[string]any)
		keys = append(keys, v["chain_key"].(string))
		require.Equal(t, true, v["ok"])
		require.Positive(t, v["checked"])
	}
	require.Equal(t, []string{"_system", "web"}, keys, "the organization's chains, not acme's")

	_, err := b.d.ExecContext(context.Background(), `UPDATE entry_chain_heads SET last_hash = repeat('f', 64) WHERE chain_key = 'web'`)
	require.NoError(t, err)
	got = b.call(t, "vic", "GET", "/log/verify", "")
	web := got.body["verdicts"].([]any)[1].(map[string]any)
	require.Equal(t, false, web["ok"])
	require.Contains(t, web["reason"], "chain head does not match")
}

// TestEveryOperationForEachRole calls every audit operation as each role.
func TestEveryOperationForEachRole(t *testing.T) {
	b := newBoard(t)
	ids := b.entries(t, "limit=3")
	ops := []struct {
		method, path string
		min          identity.Role
	}{
		{"GET", "/entries", identity.Viewer},
		{"GET", "/log/verify", identity.Viewer},
		{"POST", "/entries/%v/erase", identity.Owner},
	}
	for i, r := range []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}} {
		for _, o := range ops {
			path := o.path
			if strings.Contains(path, "%v") {
				path = fmt.Sprintf(path, ids[i]["id"])
			}
			t.Run(o.method+path+"/"+string(r.role), func(t *testing.T) {
				got := b.call(t, r.id, o.method, path, "")
				if r.role.AtLeast(o.min) {
					require.Equal(t, 200, got.status, got.raw)
					return
				}
				require.Equal(t, http.StatusForbidden, got.status, got.raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs %s", r.id, r.role, o.min)}, got.body)
			})
		}
	}
}
