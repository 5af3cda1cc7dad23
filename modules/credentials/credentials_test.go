package credentials_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) {
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	pgtest.Main(m)
}

// noPlugins is a plugin host with no credential plugin configured.
type noPlugins struct{}

func (noPlugins) Credential(name string) (credential.Credential, error) {
	return nil, errs.E(errs.NotFound, "no plugin named %q", name)
}

type fixture struct {
	d        *db.DB
	k        *kernel.Kernel
	ident    *identity.Service
	mandates *mandate.Service
	root     string
}

func setup(t *testing.T, env map[string]string, plugins credentials.Plugins) *fixture {
	ctx := context.Background()
	f := &fixture{d: pgtest.New(t)}
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	cfg, err := boot.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	log := ledger.New(nil)
	f.mandates = mandate.NewService(keys, nil)
	f.ident = identity.NewService(f.d, log, f.mandates, nil)
	f.k = kernel.New(kernel.Deps{DB: f.d, Log: log, Mandates: f.mandates, Identity: f.ident, Config: cfg})
	require.NoError(t, f.k.Register(credentials.New(credentials.Options{Plugins: plugins, Keys: keys})))
	_, err = f.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = f.ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	r, err := f.ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	f.root = r.RootMandateID.String()
	return f
}

func (f *fixture) count(t *testing.T, q string, args ...any) int {
	var n int
	require.NoError(t, f.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

// Revoking a link puts every credential id minted for it and its subtree on
// its format's list and bumps that list's version, in the same transaction.
func TestRevokingALinkPublishesEveryIDMintedThroughIt(t *testing.T) {
	ctx := context.Background()
	f := setup(t, nil, noPlugins{})
	root, err := f.mandates.Get(ctx, f.d, f.root)
	require.NoError(t, err)
	var child *mandate.Mandate
	require.NoError(t, f.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		child, err = f.mandates.IssueChild(ctx, tx, mandate.Chain{root}, mandate.ChildInput{Holder: "code-web", Scope: []string{"task.read@project:web"}})
		return err
	}))
	_, err = f.d.ExecContext(ctx, `INSERT INTO credential_links (format, external_id, mandate_id) VALUES
		('tenuo', 'w-root', ?), ('tenuo', 'w-child', ?), ('biscuit', 'b-child', ?)`, root.ID, child.ID, child.ID)
	require.NoError(t, err)

	// A revocation that rolls back publishes nothing.
	err = f.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := f.mandates.RevokeSubtree(ctx, tx, child.ID); err != nil {
			return err
		}
		return errs.E(errs.InvalidRequest, "changed my mind")
	})
	require.Error(t, err)
	require.Zero(t, f.count(t, `SELECT count(*) FROM credential_revocations`))

	require.NoError(t, f.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := f.mandates.RevokeSubtree(ctx, tx, child.ID)
		return err
	}))
	require.Equal(t, 2, f.count(t, `SELECT count(*) FROM credential_revocations WHERE external_id IN ('w-child', 'b-child')`))
	require.Equal(t, 1, f.count(t, `SELECT version FROM credential_revocation_version WHERE format = 'tenuo'`))
	require.Equal(t, 1, f.count(t, `SELECT version FROM credential_revocation_version WHERE format = 'biscuit'`))

	require.NoError(t, f.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := f.mandates.RevokeSubtree(ctx, tx, root.ID)
		return err
	}))
	require.Equal(t, 3, f.count(t, `SELECT count(*) FROM credential_revocations`), "the root's id joins; the child's stay once")
	require.Equal(t, 2, f.count(t, `SELECT version FROM credential_revocation_version WHERE format = 'tenuo'`))
	require.Equal(t, 1, f.count(t, `SELECT version FROM credential_revocation_version WHERE format = 'biscuit'`), "nothing new for biscuit")
}

func TestRevocationListRoutes(t *testing.T) {
	f := setup(t, nil, noPlugins{})
	srv := httptest.NewServer(f.k.Handler())
	defer srv.Close()
	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		return resp.StatusCode, body
	}
	status, body := get("/.well-known/pact-revocations/x509")
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "no revocation list for format 'x509'", body["message"])
	status, body = get("/.well-known/pact-revocations/tenuo")
	require.Equal(t, http.StatusServiceUnavailable, status, "no tenuo plugin is configured")
	require.Equal(t, "unavailable", body["error"])
}

// With an export format set, a claim says why it carries no credential
// when none can be issued — and the claim itself stands.
func TestClaimsSayWhyNoCredentialWasIssued(t *testing.T) {
	ctx := context.Background()
	f := setup(t, map[string]string{"PACT_EXPORT_FORMAT": "biscuit"}, noPlugins{})
	claimed := kernel.Claimed{AgentID: "code-web", MandateID: f.root}
	run := func() map[string]any {
		out := map[string]any{}
		require.NoError(t, f.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			f.k.Claims().Run(ctx, tx, claimed, out)
			_, err := tx.ExecContext(ctx, `SELECT 1`) // the claim's transaction is still usable
			return err
		}))
		return out
	}
	require.Contains(t, run()["credential_note"], "has no registered key")
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_, err = f.d.ExecContext(ctx, `INSERT INTO agent_keys (agent_id, kid, public_key) VALUES ('code-web', 'abcdefghijklmnop', ?)`, []byte(pub))
	require.NoError(t, err)
	require.Contains(t, run()["credential_note"], "no credential plugin named biscuit")
}
