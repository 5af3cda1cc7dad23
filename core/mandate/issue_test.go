package mandate_test

import (
	"bytes"
	"encoding/base64"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func TestPayloadIsTheSignedCanonicalJSON(t *testing.T) {
	parent := uuid.MustParse("11111111-1111-4111-8111-111111111111")
	m := &mandate.Mandate{
		ID: uuid.MustParse("22222222-2222-4222-8222-222222222222"), ParentID: &parent,
		IssuerKind: "agent", Issuer: "a1", Holder: "a2",
		Scope:           []string{"task.work@project:web", "task.read@project:web"},
		Limits:          map[string]float64{"thb": 100000, "cost_usd": 2.5},
		DelegationsLeft: 1, Depth: 1,
		ExpiresAt: time.Date(2026, 3, 31, 12, 0, 0, 123456000, time.FixedZone("ICT", 7*3600)),
		Format:    "pact", Signature: "ignored", CreatedAt: t0,
	}
	got, err := m.Payload()
	require.NoError(t, err)
	require.Equal(t, `{"delegations_left":1,"depth":1,"expires_at":"2026-03-31T05:00:00.123456+00:00",`+
		`"holder":"a2","id":"22222222-2222-4222-8222-222222222222","issuer":"a1","issuer_kind":"agent",`+
		`"limits":{"cost_usd":2.5,"thb":100000},"parent_id":"11111111-1111-4111-8111-111111111111",`+
		`"scope":["task.work@project:web","task.read@project:web"]}`, string(got))

	ext, principal := "warrant-1", "b64key"
	m.ParentID, m.IssuerKind, m.Issuer, m.Depth, m.Limits = nil, "human", "boss", 0, nil
	m.Format, m.ExternalID, m.IssuerPrincipal = "tenuo", &ext, &principal
	got, err = m.Payload()
	require.NoError(t, err)
	require.Equal(t, `{"delegations_left":1,"depth":0,"expires_at":"2026-03-31T05:00:00.123456+00:00",`+
		`"external_id":"warrant-1","format":"tenuo","holder":"a2","id":"22222222-2222-4222-8222-222222222222",`+
		`"issuer":"boss","issuer_kind":"human","issuer_principal":"b64key","limits":{},"parent_id":null,`+
		`"scope":["task.work@project:web","task.read@project:web"]}`, string(got))
}

func TestIssueRootStoresASignedRow(t *testing.T) {
	w := newWorld(t)
	expires := t0.Add(time.Hour + 1500*time.Nanosecond) // sub-microsecond part is dropped
	var m *mandate.Mandate
	require.NoError(t, w.tx(func(tx bun.IDB) (err error) {
		m, err = w.svc.IssueRoot(w.ctx, tx, mandate.RootInput{
			Issuer: "boss", Holder: "a1", Scope: web, Limits: map[string]float64{"thb": 100000, "x": 0.1},
			Delegations: 2, ExpiresAt: expires,
		})
		return err
	}))
	require.Equal(t, "human", m.IssuerKind)
	require.Nil(t, m.ParentID)
	require.Equal(t, 0, m.Depth)
	require.Equal(t, 2, m.DelegationsLeft)
	require.Equal(t, "pact", m.Format)
	require.Equal(t, expires.Truncate(time.Microsecond), m.ExpiresAt)
	require.Regexp(t, `^ed25519:derived-1:[A-Za-z0-9_-]{86}$`, m.Signature)
	require.False(t, m.CreatedAt.IsZero())

	var got *mandate.Mandate
	require.NoError(t, w.tx(func(tx bun.IDB) (err error) {
		got, err = w.svc.Get(w.ctx, tx, m.ID.String())
		return err
	}))
	require.Equal(t, m, got, "what is read back is what was signed")
	payload, err := got.Payload()
	require.NoError(t, err)
	require.True(t, w.keys.VerifySignature(payload, got.Signature))
}

func TestIssueRootRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	ok := mandate.RootInput{Issuer: "boss", Holder: "a1", Scope: web, Delegations: 1, ExpiresAt: t0.Add(time.Hour)}
	for name, tt := range map[string]struct {
		edit func(*mandate.RootInput)
		code errs.Code
		msg  string
	}{
		"NegativeDelegations": {func(in *mandate.RootInput) { in.Delegations = -1 }, errs.InvalidRequest, "delegations must be between 0 and 5"},
		"TooManyDelegations":  {func(in *mandate.RootInput) { in.Delegations = 6 }, errs.InvalidRequest, "delegations must be between 0 and 5"},
		"EmptyScope":          {func(in *mandate.RootInput) { in.Scope = nil }, errs.InvalidRequest, "scope is empty"},
		"InvalidScope":        {func(in *mandate.RootInput) { in.Scope = []string{"a b"} }, errs.InvalidRequest, "invalid scope: a b"},
		"NegativeLimit":       {func(in *mandate.RootInput) { in.Limits = map[string]float64{"thb": -1} }, errs.InvalidRequest, "limit thb=-1 must be a number of at least 0"},
		"NoExpiry":            {func(in *mandate.RootInput) { in.ExpiresAt = time.Time{} }, errs.InvalidRequest, "a mandate needs an expiry"},
		"UnknownHolder":       {func(in *mandate.RootInput) { in.Holder = "ghost" }, errs.NotFound, "agent ghost does not exist"},
		"UnknownFormat": {func(in *mandate.RootInput) { in.Imported = &mandate.Imported{Format: "ucan"} },
			errs.InvalidRequest, `credential format "ucan" is not one of tenuo, biscuit`},
	} {
		t.Run(name, func(t *testing.T) {
			in := ok
			tt.edit(&in)
			err := w.tx(func(tx bun.IDB) error {
				_, err := w.svc.IssueRoot(w.ctx, tx, in)
				return err
			})
			e := requireRefusal(t, err, tt.code, "")
			require.Equal(t, tt.msg, e.Message)
		})
	}
}

// trustedKey adds a live trusted root standing for boss and returns its
// principal as imported links name it (base64url).
func trustedKey(w *world, fill byte) string {
	key := bytes.Repeat([]byte{fill}, 32)
	w.exec(`INSERT INTO trusted_roots (principal, org_id, human, created_by) VALUES (?, 'default', 'boss', 'boss')`, key)
	return base64.RawURLEncoding.EncodeToString(key)
}

func importRoot(w *world, principal, externalID string) (*mandate.Mandate, error) {
	var m *mandate.Mandate
	err := w.tx(func(tx bun.IDB) (err error) {
		m, err = w.svc.IssueRoot(w.ctx, tx, mandate.RootInput{
			Issuer: "boss", Holder: "a1", Scope: web, Delegations: 2, ExpiresAt: t0.Add(time.Hour),
			Imported: &mandate.Imported{Format: "tenuo", ExternalID: externalID, Credential: []byte{1, 2}, IssuerPrincipal: principal},
		})
		return err
	})
	return m, err
}

func TestIssueRootSignsImportedLinksWithTheirOrigin(t *testing.T) {
	w := newWorld(t)
	principal := trustedKey(w, 7)
	m, err := importRoot(w, principal, "w-1")
	require.NoError(t, err)
	require.Equal(t, "tenuo", m.Format)
	payload, err := m.Payload()
	require.NoError(t, err)
	require.Contains(t, string(payload), `"issuer_principal":"`+principal+`"`)
	c := w.chain(m)
	require.Equal(t, "w-1", *c.Leaf().ExternalID)
	var cred []byte
	require.NoError(t, w.d.QueryRowContext(w.ctx, "SELECT credential FROM mandates WHERE id = ?", m.ID.String()).Scan(&cred))
	require.True(t, bytes.Equal([]byte{1, 2}, cred))
}

func TestIssueChildNarrowsItsParent(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, map[string]float64{"thb": 100000}, 2)
	child := w.child(root, "a2", []string{"task.work@project:web"}, map[string]float64{"thb": 500, "runs": 3})
	require.Equal(t, root.ID, *child.ParentID)
	require.Equal(t, "agent", child.IssuerKind)
	require.Equal(t, "a1", child.Issuer, "the issuer is the parent's holder")
	require.Equal(t, 1, child.Depth)
	require.Equal(t, 1, child.DelegationsLeft)
	require.Equal(t, root.ExpiresAt, child.ExpiresAt, "a child expires with its parent by default")

	c := w.chain(child)
	require.Equal(t, []uuid.UUID{root.ID, child.ID}, c.IDs())
	require.Equal(t, child.ID, c.Leaf().ID)
	require.Equal(t, root.ID, c.Root().ID)

	// A later expiry is clamped to the parent's; an earlier one is kept.
	later, earlier := root.ExpiresAt.Add(time.Hour), t0.Add(time.Hour+time.Nanosecond)
	m, err := w.issueChild(root, mandate.ChildInput{Holder: "a3", Scope: web, ExpiresAt: &later})
	require.NoError(t, err)
	require.Equal(t, root.ExpiresAt, m.ExpiresAt)
	m, err = w.issueChild(root, mandate.ChildInput{Holder: "a3", Scope: web, ExpiresAt: &earlier})
	require.NoError(t, err)
	require.Equal(t, t0.Add(time.Hour), m.ExpiresAt)
	w.chain(m)
}

func TestIssueChildRefusals(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", []string{"task.*@project:web"}, map[string]float64{"thb": 100000}, 1)
	rid := root.ID.String()
	child := w.child(root, "a2", []string{"task.work@project:web"}, nil)
	cid := child.ID.String()
	noDelegations := w.root("a3", web, nil, 0)

	for name, tt := range map[string]struct {
		parent *mandate.Mandate
		in     mandate.ChildInput
		code   errs.Code
		id     string
		msg    string
	}{
		"RootWithoutDelegations": {noDelegations, mandate.ChildInput{Holder: "a4", Scope: web},
			errs.DelegationExhausted, noDelegations.ID.String(), "mandate " + noDelegations.ID.String() + " has no delegations left"},
		"ChildWithoutDelegations": {child, mandate.ChildInput{Holder: "a4", Scope: []string{"task.work@project:web"}},
			errs.DelegationExhausted, cid, "mandate " + cid + " has no delegations left"},
		"OtherProject": {root, mandate.ChildInput{Holder: "a4", Scope: []string{"task.work@project:api", "task.read@project:web"}},
			errs.ScopeExceeded, rid, "child scope is wider than mandate " + rid + ": task.work@project:api"},
		"WiderAction": {root, mandate.ChildInput{Holder: "a4", Scope: []string{"deploy.web@project:web", "*@project:web"}},
			errs.ScopeExceeded, rid, "child scope is wider than mandate " + rid + ": deploy.web@project:web, *@project:web"},
		"LimitAboveParent": {root, mandate.ChildInput{Holder: "a4", Scope: []string{"task.work@project:web"}, Limits: map[string]float64{"runs": 9, "thb": 150000}},
			errs.LimitExceeded, rid, "child limit thb=150000 is above 100000 on mandate " + rid},
		"EmptyScope": {root, mandate.ChildInput{Holder: "a4"}, errs.InvalidRequest, "", "scope is empty"},
		"NegativeLimit": {root, mandate.ChildInput{Holder: "a4", Scope: []string{"task.work@project:web"}, Limits: map[string]float64{"runs": -1}},
			errs.InvalidRequest, "", "limit runs=-1 must be a number of at least 0"},
		"UnknownHolder": {root, mandate.ChildInput{Holder: "ghost", Scope: []string{"task.work@project:web"}},
			errs.NotFound, "", "agent ghost does not exist"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := w.issueChild(tt.parent, tt.in)
			e := requireRefusal(t, err, tt.code, tt.id)
			require.Equal(t, tt.msg, e.Message)
		})
	}
}

func TestIssueChildRefusesBelowMaxDepth(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3", "a4", "a5", "a6") // depth 0..5
	leaf := links[len(links)-1]
	require.Equal(t, mandate.MaxDepth, leaf.Depth)
	_, err := w.issueChild(leaf, mandate.ChildInput{Holder: "a7", Scope: web})
	requireRefusal(t, err, errs.DelegationExhausted, leaf.ID.String())

	// The depth rule holds on its own, even for a link that claims delegations.
	deep := &mandate.Mandate{ID: uuid.New(), Depth: mandate.MaxDepth, DelegationsLeft: 3, Scope: web, ExpiresAt: t0.Add(time.Hour)}
	_, err = w.svc.IssueChild(w.ctx, w.d, mandate.Chain{deep}, mandate.ChildInput{Holder: "a7", Scope: web})
	requireRefusal(t, err, errs.DelegationExhausted, deep.ID.String())

	_, err = w.svc.IssueChild(w.ctx, w.d, nil, mandate.ChildInput{Holder: "a7", Scope: web})
	require.Equal(t, errs.Internal, errs.CodeOf(err))
}

func TestGet(t *testing.T) {
	w := newWorld(t)
	for _, id := range []string{"nope", uuid.NewString(), "{" + uuid.NewString() + "}", "22222222222242228222222222222222", ""} {
		_, err := w.svc.Get(w.ctx, w.d, id)
		e := requireRefusal(t, err, errs.NotFound, "")
		require.Equal(t, "mandate "+id+" does not exist", e.Message)
	}
}

// An imported link answers to its trusted root on every use: revoking the
// root stops it, and re-adding the key later does not bring it back.
func TestImportedLinksDieWithTheirTrustedRoot(t *testing.T) {
	w := newWorld(t)
	principal := trustedKey(w, 9)
	m, err := importRoot(w, principal, "w-2")
	require.NoError(t, err)
	w.chain(m)
	w.exec(`UPDATE trusted_roots SET revoked_at = now()`)
	_, err = w.verify(m.ID.String(), "a1")
	e := requireRefusal(t, err, errs.MandateRevoked, m.ID.String())
	require.Contains(t, e.Message, "no longer a trusted root")
	w.exec(`UPDATE trusted_roots SET revoked_at = NULL, active_since = now() + interval '1 second'`)
	_, err = w.verify(m.ID.String(), "a1")
	requireRefusal(t, err, errs.MandateRevoked, m.ID.String())

	bad, err := importRoot(w, "not base64!", "w-3")
	require.NoError(t, err)
	_, err = w.verify(bad.ID.String(), "a1")
	requireRefusal(t, err, errs.ChainBroken, bad.ID.String())
}
