package people_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/plugintest"
)

func TestMain(m *testing.M) {
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	pgtest.Main(m)
}

// board is a kernel with the people module over a real database, behind a
// real HTTP server, with people signing in through a real issuer.
type board struct {
	d      *db.DB
	ident  *identity.Service
	iss    *authtest.Issuer
	cfg    *boot.Config
	server *httptest.Server
	mod    *people.Module
	stand  *standIn
	log    *ledger.Log
}

// newBoard makes, in organization default, ana (owner), val (approver)
// and vic (viewer) with the project web; in organization acme, bo (owner)
// with the project rocket. Each has the email <id>@example.com.
func newBoard(t *testing.T) *board {
	t.Helper()
	ctx := context.Background()
	b := &board{d: pgtest.New(t), iss: authtest.New(t)}
	var err error
	b.cfg, err = boot.Load(func(string) string { return "" })
	require.NoError(t, err)
	keys, err := mandate.ParseKeyring("", strings.Repeat("s", 32))
	require.NoError(t, err)
	log := ledger.New(nil)
	b.log = log
	mandates := mandate.NewService(keys, nil)
	b.ident = identity.NewService(b.d, log, mandates, nil)
	admin := auth.NewAdmin(b.ident, auth.Options{Issuer: plugintest.Issuer(t, b.iss), Audience: b.cfg.AdminAudience, RequireMFA: true})
	k := kernel.New(kernel.Deps{DB: b.d, Log: log, Mandates: mandates, Identity: b.ident, Config: b.cfg, AdminAuth: admin})
	b.mod, b.stand = people.New(), &standIn{}
	require.NoError(t, k.Register(b.mod, b.stand))
	b.server = httptest.NewServer(k.Handler())
	t.Cleanup(b.server.Close)

	_, err = b.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	for id, role := range map[string]identity.Role{"val": identity.Approver, "vic": identity.Viewer} {
		_, err = b.ident.AddHuman(ctx, "ana", identity.HumanInput{ID: id, Name: strings.ToUpper(id[:1]) + id[1:], Role: role, Email: id + "@example.com"})
		require.NoError(t, err)
	}
	_, err = b.ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	_, err = b.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	require.NoError(t, err)
	return b
}

// token is an access token of person id (sub-<id>, <id>@example.com).
func (b *board) token(t *testing.T, id string) string {
	return b.iss.Token(t, authtest.Claims{Subject: "sub-" + id, Email: id + "@example.com", EmailVerified: true,
		Audience: []string{b.cfg.AdminAudience}})
}

type reply struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

// call sends body (JSON text, or "" for none) as person as ("" for no token).
func (b *board) call(t *testing.T, as, method, path, body string) reply {
	t.Helper()
	token := ""
	if as != "" {
		token = b.token(t, as)
	}
	return b.callWith(t, token, method, path, body)
}

func (b *board) callWith(t *testing.T, token, method, path, body string) reply {
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
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := b.server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := reply{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (b *board) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

// TestEveryOperationForEachRole calls every operation as each role and
// expects it allowed from its least role up and refused below, with the
// words of §10.1.
func TestEveryOperationForEachRole(t *testing.T) {
	b := newBoard(t)
	roles := []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}}
	ops := []struct {
		method, path string
		body         func(as string) string
		min          identity.Role
		ok           int
	}{
		{"GET", "/me", nil, identity.Viewer, 200},
		{"GET", "/humans", nil, identity.Viewer, 200},
		{"POST", "/humans", func(as string) string {
			return fmt.Sprintf(`{"id": "new-%s", "name": "New", "email": "new-%s@example.com"}`, as, as)
		}, identity.Owner, 201},
		{"PATCH", "/humans/vic", func(as string) string { return `{"name": "Vic ` + as + `"}` }, identity.Owner, 200},
		{"GET", "/projects", nil, identity.Viewer, 200},
		{"POST", "/projects", func(as string) string { return `{"id": "p-` + as + `", "name": "P"}` }, identity.Owner, 201},
		{"PATCH", "/projects/web", func(string) string { return `{"frozen": false}` }, identity.Owner, 200},
		{"GET", "/org", nil, identity.Viewer, 200},
		{"PUT", "/org", func(as string) string { return `{"name": "Org ` + as + `"}` }, identity.Owner, 200},
		{"POST", "/kill-switch", func(string) string { return `{"halted": false}` }, identity.Owner, 200},
	}
	for _, o := range ops {
		for _, r := range roles {
			t.Run(o.method+o.path+"/"+string(r.role), func(t *testing.T) {
				body := ""
				if o.body != nil {
					body = o.body(r.id)
				}
				got := b.call(t, r.id, o.method, o.path, body)
				require.Equal(t, "no-store", got.header.Get("Cache-Control"))
				if r.role.AtLeast(o.min) {
					require.Equal(t, o.ok, got.status, got.raw)
					return
				}
				require.Equal(t, http.StatusForbidden, got.status, got.raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs %s", r.id, r.role, o.min)}, got.body)
			})
		}
	}
}

func TestSignInOverHTTP(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct {
		name, token string
		status      int
		code, says  string
	}{
		{"NoToken", "", 401, "unauthorized", "Bearer"},
		{"AgentToken", "pact_" + strings.Repeat("x", 43), 401, "unauthorized", "the Admin API takes a person's OAuth token"},
		{"NoSecondFactor", b.iss.Token(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true,
			AMR: []string{"pwd"}, Audience: []string{b.cfg.AdminAudience}}), 401, "unauthorized", "second factor"},
		{"AgentURLAudience", b.iss.Token(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true,
			Audience: []string{b.cfg.PublicURL + "/mcp/a/code-web"}}), 401, "unauthorized", "audience"},
		{"Stranger", b.iss.Token(t, authtest.Claims{Subject: "sub-eve", Email: "eve@example.com", EmailVerified: true,
			Audience: []string{b.cfg.AdminAudience}}), 403, "not_registered", identity.NotRegisteredMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.callWith(t, tc.token, "GET", "/me", "")
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, tc.code, got.body["error"])
			require.Contains(t, got.body["message"], tc.says)
			require.Equal(t, "no-store", got.header.Get("Cache-Control"))
		})
	}

	require.Equal(t, 200, b.call(t, "ana", "PATCH", "/humans/vic", `{"disabled": true}`).status)
	got := b.call(t, "vic", "GET", "/me", "")
	require.Equal(t, 403, got.status)
	require.Equal(t, "account_disabled", got.body["error"])
}
