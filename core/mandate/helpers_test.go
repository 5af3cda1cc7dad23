package mandate_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testSigningKey stands in for PACT_SIGNING_KEY.
const testSigningKey = "test-signing-key-0123456789abcdef"

// t0 is the fixed "now" of every world.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// world is one test's database with people, agents and a service whose clock
// the test controls.
type world struct {
	tb   testing.TB
	ctx  context.Context
	d    *db.DB
	keys *mandate.Keyring
	svc  *mandate.Service
	now  time.Time
}

// newWorld makes a fresh database with org "default" (person "boss", agents
// a1..a7) and org "rival" (person "rita", agent "r1"), and a service signing
// with the key derived from testSigningKey.
func newWorld(tb testing.TB) *world {
	tb.Helper()
	keys, err := mandate.ParseKeyring("", testSigningKey)
	require.NoError(tb, err)
	return newWorldWithKeys(tb, keys)
}

func newWorldWithKeys(tb testing.TB, keys *mandate.Keyring) *world {
	tb.Helper()
	w := &world{tb: tb, ctx: context.Background(), d: pgtest.New(tb), keys: keys, now: t0}
	w.svc = w.service(keys)
	w.exec("INSERT INTO orgs (id, name, system_chain) VALUES ('rival', 'Rival', '_system:rival')")
	w.exec("INSERT INTO humans (id, org_id, name, role) VALUES ('boss', 'default', 'Boss', 'owner'), ('rita', 'rival', 'Rita', 'owner')")
	for _, a := range []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7"} {
		w.exec("INSERT INTO agents (id, org_id, owner, client) VALUES (?, 'default', 'boss', 'code')", a)
	}
	w.exec("INSERT INTO agents (id, org_id, owner, client) VALUES ('r1', 'rival', 'rita', 'code')")
	return w
}

// service returns a service over keys that reads the world's clock.
func (w *world) service(keys *mandate.Keyring) *mandate.Service {
	return mandate.NewService(keys, &mandate.Options{Now: func() time.Time { return w.now }})
}

func (w *world) exec(query string, args ...any) {
	w.tb.Helper()
	_, err := w.d.ExecContext(w.ctx, query, args...)
	require.NoError(w.tb, err)
}

func (w *world) tx(fn func(tx bun.IDB) error) error {
	return w.d.InTx(w.ctx, func(ctx context.Context, tx bun.Tx) error { return fn(tx) })
}

// root issues a root mandate from boss to holder, expiring in 30 days.
func (w *world) root(holder string, scope []string, limits map[string]float64, delegations int) *mandate.Mandate {
	w.tb.Helper()
	var m *mandate.Mandate
	require.NoError(w.tb, w.tx(func(tx bun.IDB) (err error) {
		m, err = w.svc.IssueRoot(w.ctx, tx, mandate.RootInput{
			Issuer: "boss", Holder: holder, Scope: scope, Limits: limits,
			Delegations: delegations, ExpiresAt: t0.Add(30 * 24 * time.Hour),
		})
		return err
	}))
	return m
}

// verify verifies leaf for holder in its own transaction.
func (w *world) verify(leaf, holder string) (mandate.Chain, error) {
	var c mandate.Chain
	err := w.tx(func(tx bun.IDB) (err error) {
		c, err = w.svc.Verify(w.ctx, tx, leaf, holder)
		return err
	})
	return c, err
}

// chain verifies m for its holder and requires it to pass.
func (w *world) chain(m *mandate.Mandate) mandate.Chain {
	w.tb.Helper()
	c, err := w.verify(m.ID.String(), m.Holder)
	require.NoError(w.tb, err)
	return c
}

// child delegates from the leaf of parent's chain to holder.
func (w *world) child(parent *mandate.Mandate, holder string, scope []string, limits map[string]float64) *mandate.Mandate {
	w.tb.Helper()
	m, err := w.issueChild(parent, mandate.ChildInput{Holder: holder, Scope: scope, Limits: limits})
	require.NoError(w.tb, err)
	return m
}

func (w *world) issueChild(parent *mandate.Mandate, in mandate.ChildInput) (*mandate.Mandate, error) {
	var m *mandate.Mandate
	err := w.tx(func(tx bun.IDB) error {
		c, err := w.svc.Verify(w.ctx, tx, parent.ID.String(), parent.Holder)
		if err != nil {
			return err
		}
		m, err = w.svc.IssueChild(w.ctx, tx, c, in)
		return err
	})
	return m, err
}

// line issues a root to a1 with scope web and delegations 5, then a child per
// further holder, and returns the links root first.
func (w *world) line(limits map[string]float64, holders ...string) []*mandate.Mandate {
	w.tb.Helper()
	links := []*mandate.Mandate{w.root("a1", web, limits, mandate.MaxDepth)}
	for _, h := range holders {
		links = append(links, w.child(links[len(links)-1], h, web, nil))
	}
	return links
}

// insertSigned stores m exactly as given, signed by keys, bypassing every
// check of the service: how tests make chains the service would never issue.
func (w *world) insertSigned(keys *mandate.Keyring, m *mandate.Mandate) {
	w.tb.Helper()
	if m.Format == "" {
		m.Format = mandate.FormatPact
	}
	payload, err := m.Payload()
	require.NoError(w.tb, err)
	m.Signature = keys.Sign(payload)
	w.insertRaw(m)
}

// insertRaw stores m with the signature it carries.
func (w *world) insertRaw(m *mandate.Mandate) {
	w.tb.Helper()
	var parent any
	if m.ParentID != nil {
		parent = m.ParentID.String()
	}
	if m.Limits == nil {
		m.Limits = map[string]float64{}
	}
	limits, err := json.Marshal(m.Limits)
	require.NoError(w.tb, err)
	w.exec(`INSERT INTO mandates (id, parent_id, issuer_kind, issuer, holder, scope, limits, delegations_left, depth,
		expires_at, signature, format) VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)`,
		m.ID.String(), parent, m.IssuerKind, m.Issuer, m.Holder, pgdialect.Array(m.Scope), string(limits),
		m.DelegationsLeft, m.Depth, m.ExpiresAt, m.Signature, m.Format)
}

// requireRefusal requires err to be a refusal with code naming mandateID, and
// returns it.
func requireRefusal(tb testing.TB, err error, code errs.Code, mandateID string) *errs.Error {
	tb.Helper()
	e, ok := errs.As(err)
	require.True(tb, ok, "want a refusal %s, got %v", code, err)
	require.Equal(tb, code, e.Code, e.Message)
	require.Equal(tb, mandateID, e.MandateID, e.Message)
	return e
}

var web = []string{"task.read@project:web", "task.work@project:web"}
