package credentials_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/sdk/plugintest"
)

// board is a kernel with the credentials module over a real database,
// behind a real HTTP server, with people signing in through a real issuer.
type board struct {
	d      *db.DB
	ident  *identity.Service
	mod    *credentials.Module
	iss    *authtest.Issuer
	cfg    *boot.Config
	server *httptest.Server
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
	mandates := mandate.NewService(keys, nil)
	b.ident = identity.NewService(b.d, log, mandates, nil)
	admin := auth.NewAdmin(b.ident, auth.Options{Issuer: plugintest.Issuer(t, b.iss), Audience: b.cfg.AdminAudience, RequireMFA: true})
	k := kernel.New(kernel.Deps{DB: b.d, Log: log, Mandates: mandates, Identity: b.ident, Config: b.cfg, AdminAuth: admin})
	b.mod = credentials.New(credentials.Options{Plugins: noPlugins{}, Keys: keys})
	require.NoError(t, k.Register(b.mod))
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

// withAgents adds the code agents reg-web and hired-web (of web) and, in
// acme, the agent rocket-bot.
func withAgents(t *testing.T, b *board) {
	t.Helper()
	ctx := context.Background()
	for _, id := range []string{"reg-web", "hired-web"} {
		_, err := b.ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: id, Client: "code", Projects: []string{"web"}})
		require.NoError(t, err)
	}
	_, err := b.d.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client) VALUES ('rocket-bot', 'acme', 'bo', 'code');`)
	require.NoError(t, err)
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
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.server.URL+"/admin/api"+path, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if as != "" {
		req.Header.Set("Authorization", "Bearer "+b.iss.Token(t, authtest.Claims{Subject: "sub-" + as,
			Email: as + "@example.com", EmailVerified: true, Audience: []string{b.cfg.AdminAudience}}))
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
