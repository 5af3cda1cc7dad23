package mandate_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func TestVerifyReturnsTheChainRootFirst(t *testing.T) {
	w := newWorld(t)
	links := w.line(map[string]float64{"thb": 10}, "a2", "a3")
	c, err := w.verify(links[2].ID.String(), "a3")
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{links[0].ID, links[1].ID, links[2].ID}, c.IDs())
	require.Equal(t, links[0], c[0])
	require.Equal(t, links[2], c.Leaf())
}

func TestVerifyRefusesMissingMandates(t *testing.T) {
	w := newWorld(t)
	for _, id := range []string{"nope", "", uuid.NewString(), "urn:uuid:" + uuid.NewString()} {
		_, err := w.verify(id, "a1")
		e := requireRefusal(t, err, errs.ChainBroken, id)
		require.Equal(t, "mandate "+id+" does not exist", e.Message)
	}
}

func TestTheDatabaseRefusesEditsToSignedColumns(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, nil, 1)
	_, err := w.d.ExecContext(w.ctx, "UPDATE mandates SET scope = '{*}' WHERE id = ?", root.ID.String())
	require.Error(t, err)
	require.Equal(t, db.RestrictViolation, db.PgCode(err))
	require.Contains(t, err.Error(), "mandates are signed and never edited")
}

// Every column of the mandates table, read from the database's catalog, is
// refused a change (MANDATE-004) but those named below with why; a column
// added later fails until it is one or the other. Each change is made on a
// root the service issued, one column at a time.
func TestTheDatabaseRefusesEditsToEveryColumnButTheNamedOnes(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, map[string]float64{"usd": 5}, 2)
	var cols []struct {
		Name string `bun:"column_name"`
		Type string `bun:"data_type"`
	}
	require.NoError(t, w.d.NewRaw(`SELECT column_name::text, data_type::text FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'mandates' ORDER BY ordinal_position`).Scan(w.ctx, &cols))
	require.NotEmpty(t, cols)
	mutable := map[string]string{
		"revoked_at":  "set once by a revocation, never undone (TestTheDatabaseRefusesEditsToSignedColumns)",
		"exported_as": "written when the board exports its own link as a credential, after signing",
		"external_id": "written when the board exports its own link; an imported link's is signed, so a change is chain_broken",
		"credential":  "the exported credential, written with exported_as",
	}
	// A different value of each type, whatever the row holds.
	changed := map[string]string{
		"uuid":                     "gen_random_uuid()",
		"text":                     "coalesce(%s, '') || 'x'",
		"ARRAY":                    "array_append(%s, 'x')",
		"jsonb":                    `%s || '{"x": 1}'`,
		"integer":                  "%s + 1",
		"timestamp with time zone": "coalesce(%s, now()) + interval '1 second'",
		"bytea":                    "coalesce(%s, ''::bytea) || 'x'::bytea",
	}
	refused := 0
	for _, c := range cols {
		if _, ok := mutable[c.Name]; ok {
			continue
		}
		expr, known := changed[c.Type]
		require.True(t, known, "column %s of type %s: say how to change it", c.Name, c.Type)
		if strings.Contains(expr, "%s") {
			expr = fmt.Sprintf(expr, c.Name)
		}
		_, err := w.d.ExecContext(w.ctx, "UPDATE mandates SET "+c.Name+" = "+expr+" WHERE id = ?", root.ID.String())
		require.Error(t, err, "column %s may be changed: name it in mutable with why, or refuse it (MANDATE-004)", c.Name)
		require.Equal(t, db.RestrictViolation, db.PgCode(err), "column %s: %v", c.Name, err)
		require.Contains(t, err.Error(), "mandates are signed and never edited", c.Name)
		refused++
	}
	for name := range mutable {
		require.True(t, slices.ContainsFunc(cols, func(c struct {
			Name string `bun:"column_name"`
			Type string `bun:"data_type"`
		}) bool {
			return c.Name == name
		}), "mutable names %s, which the table does not have", name)
	}
	require.Equal(t, len(cols)-len(mutable), refused)
}

func TestVerifyRefusesATamperedLink(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3")
	w.exec("ALTER TABLE mandates DISABLE TRIGGER mandates_signed")
	w.exec("UPDATE mandates SET scope = '{*@project:web}' WHERE id = ?", links[1].ID.String())
	w.exec("ALTER TABLE mandates ENABLE TRIGGER mandates_signed")

	_, err := w.verify(links[2].ID.String(), "a3")
	e := requireRefusal(t, err, errs.ChainBroken, links[1].ID.String())
	require.Equal(t, "signature of mandate "+links[1].ID.String()+" does not match its contents", e.Message)
	_, err = w.verify(links[0].ID.String(), "a1")
	require.NoError(t, err, "the links above are untouched")
}

func TestVerifyHonoursRotationAndLegacySignatures(t *testing.T) {
	old, next := seed(t), seed(t)
	k1, err := mandate.ParseKeyring("k1="+old, testSigningKey)
	require.NoError(t, err)
	w := newWorldWithKeys(t, k1)
	signedByK1 := w.root("a1", web, nil, 1)

	rotated, err := mandate.ParseKeyring("k2="+next+",k1="+old, testSigningKey)
	require.NoError(t, err)
	w.svc = w.service(rotated)
	w.chain(signedByK1)
	signedByK2 := w.root("a2", web, nil, 1)
	require.Contains(t, signedByK2.Signature, "ed25519:k2:")

	retired, err := mandate.ParseKeyring("k2="+next, testSigningKey)
	require.NoError(t, err)
	w.svc = w.service(retired)
	_, err = w.verify(signedByK1.ID.String(), "a1")
	requireRefusal(t, err, errs.ChainBroken, signedByK1.ID.String())
	w.chain(signedByK2)

	// A row signed before Ed25519 carries an HMAC under PACT_SIGNING_KEY.
	legacy := &mandate.Mandate{ID: uuid.New(), IssuerKind: "human", Issuer: "boss", Holder: "a3", Scope: web,
		DelegationsLeft: 1, ExpiresAt: t0.Add(time.Hour), Format: "pact"}
	payload, err := legacy.Payload()
	require.NoError(t, err)
	legacy.Signature = mandate.LegacyHMAC([]byte(testSigningKey), payload)
	w.insertRaw(legacy)
	w.chain(legacy)
	noHMAC, err := mandate.ParseKeyring("k2="+next, "")
	require.NoError(t, err)
	w.svc = w.service(noHMAC)
	_, err = w.verify(legacy.ID.String(), "a3")
	requireRefusal(t, err, errs.ChainBroken, legacy.ID.String())
}

func TestVerifyRefusesChainsThatCrossOrganizations(t *testing.T) {
	w := newWorld(t)
	// rita (org rival) issues a root to a1 (org default).
	var m *mandate.Mandate
	require.NoError(t, w.tx(func(tx bun.IDB) (err error) {
		m, err = w.svc.IssueRoot(w.ctx, tx, mandate.RootInput{Issuer: "rita", Holder: "a1", Scope: web, Delegations: 1, ExpiresAt: t0.Add(time.Hour)})
		return err
	}))
	_, err := w.verify(m.ID.String(), "a1")
	e := requireRefusal(t, err, errs.ChainBroken, m.ID.String())
	require.Equal(t, "chain of "+m.ID.String()+" crosses organizations", e.Message)

	// boss's root delegated to r1 (org rival) crosses too.
	root := w.root("a1", web, nil, 1)
	child := w.child(root, "r1", web, nil)
	_, err = w.verify(child.ID.String(), "r1")
	e = requireRefusal(t, err, errs.ChainBroken, root.ID.String())
	require.Equal(t, "chain of "+child.ID.String()+" crosses organizations", e.Message)
}

func TestVerifyRefusesARootNotIssuedByAPerson(t *testing.T) {
	w := newWorld(t)
	var m *mandate.Mandate
	require.NoError(t, w.tx(func(tx bun.IDB) (err error) {
		m, err = w.svc.IssueRoot(w.ctx, tx, mandate.RootInput{Issuer: "ghost", Holder: "a1", Scope: web, Delegations: 1, ExpiresAt: t0.Add(time.Hour)})
		return err
	}))
	_, err := w.verify(m.ID.String(), "a1")
	e := requireRefusal(t, err, errs.ChainBroken, m.ID.String())
	require.Equal(t, "root mandate "+m.ID.String()+" was not issued by a registered human", e.Message)
}

// TestVerifyChecksEveryLinkAgainstItsParent signs children the service would
// never issue, so only the link checks can catch them.
func TestVerifyChecksEveryLinkAgainstItsParent(t *testing.T) {
	for name, tt := range map[string]struct {
		edit func(child *mandate.Mandate)
		msg  string
	}{
		"WrongIssuer":     {func(c *mandate.Mandate) { c.Issuer = "a3" }, "was issued by a3, not by the parent's holder a1"},
		"WrongDepth":      {func(c *mandate.Mandate) { c.Depth = 2 }, "has the wrong depth"},
		"WiderScope":      {func(c *mandate.Mandate) { c.Scope = []string{"deploy.web@project:web"} }, "has a wider scope than its parent"},
		"HigherLimit":     {func(c *mandate.Mandate) { c.Limits = map[string]float64{"thb": 11} }, "has a higher limit than its parent"},
		"SameDelegations": {func(c *mandate.Mandate) { c.DelegationsLeft = 2 }, "does not have fewer delegations than its parent"},
		"LaterExpiry":     {func(c *mandate.Mandate) { c.ExpiresAt = c.ExpiresAt.Add(time.Microsecond) }, "expires after its parent"},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			root := w.root("a1", web, map[string]float64{"thb": 10}, 2)
			child := &mandate.Mandate{ID: uuid.New(), ParentID: &root.ID, IssuerKind: "agent", Issuer: "a1", Holder: "a2",
				Scope: web, Limits: map[string]float64{"thb": 10, "other": 99}, DelegationsLeft: 1, Depth: 1, ExpiresAt: root.ExpiresAt}
			tt.edit(child)
			w.insertSigned(w.keys, child)
			_, err := w.verify(child.ID.String(), "a2")
			e := requireRefusal(t, err, errs.ChainBroken, child.ID.String())
			require.Equal(t, "mandate "+child.ID.String()+" "+tt.msg, e.Message)
		})
		// The same bad link in the middle, under a grandchild that narrows
		// it exactly: every link is checked against its parent, not only
		// the leaf (MANDATE-001).
		t.Run(name+"InTheMiddle", func(t *testing.T) {
			w := newWorld(t)
			root := w.root("a1", web, map[string]float64{"thb": 10}, 2)
			middle := &mandate.Mandate{ID: uuid.New(), ParentID: &root.ID, IssuerKind: "agent", Issuer: "a1", Holder: "a2",
				Scope: web, Limits: map[string]float64{"thb": 10, "other": 99}, DelegationsLeft: 1, Depth: 1, ExpiresAt: root.ExpiresAt}
			tt.edit(middle)
			w.insertSigned(w.keys, middle)
			leaf := &mandate.Mandate{ID: uuid.New(), ParentID: &middle.ID, IssuerKind: "agent", Issuer: "a2", Holder: "a3",
				Scope: middle.Scope, Limits: middle.Limits, DelegationsLeft: middle.DelegationsLeft - 1,
				Depth: middle.Depth + 1, ExpiresAt: middle.ExpiresAt}
			w.insertSigned(w.keys, leaf)
			_, err := w.verify(leaf.ID.String(), "a3")
			e := requireRefusal(t, err, errs.ChainBroken, middle.ID.String())
			require.Equal(t, "mandate "+middle.ID.String()+" "+tt.msg, e.Message)
		})
	}

	t.Run("RootDepth", func(t *testing.T) {
		w := newWorld(t)
		root := &mandate.Mandate{ID: uuid.New(), IssuerKind: "human", Issuer: "boss", Holder: "a1", Scope: web,
			DelegationsLeft: 1, Depth: 1, ExpiresAt: t0.Add(time.Hour)}
		w.insertSigned(w.keys, root)
		_, err := w.verify(root.ID.String(), "a1")
		e := requireRefusal(t, err, errs.ChainBroken, root.ID.String())
		require.Equal(t, "root mandate "+root.ID.String()+" has depth 1", e.Message)
	})

	t.Run("DeeperThanMaxDepth", func(t *testing.T) {
		w := newWorld(t)
		holders := []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7"}
		var first, prev *mandate.Mandate
		for i, h := range holders {
			m := &mandate.Mandate{ID: uuid.New(), IssuerKind: "human", Issuer: "boss", Holder: h, Scope: web,
				DelegationsLeft: 0, Depth: min(i, mandate.MaxDepth), ExpiresAt: t0.Add(time.Hour)}
			if prev != nil {
				m.ParentID, m.IssuerKind, m.Issuer = &prev.ID, "agent", prev.Holder
			}
			w.insertSigned(w.keys, m)
			if first == nil {
				first = m
			}
			prev = m
		}
		_, err := w.verify(prev.ID.String(), "a7")
		e := requireRefusal(t, err, errs.ChainBroken, first.ID.String())
		require.Equal(t, "chain of "+prev.ID.String()+" is deeper than 5 links or has no root", e.Message)
	})
}

func TestVerifyRefusesInOrder(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3")
	root, middle, leaf := links[0], links[1], links[2]
	leafID := leaf.ID.String()

	// Holder mismatch is the last check.
	_, err := w.verify(leafID, "a2")
	e := requireRefusal(t, err, errs.ChainBroken, leafID)
	require.Equal(t, "mandate "+leafID+" is held by a3, not by the caller a2", e.Message)

	// Expiry comes before the holder.
	w.now = leaf.ExpiresAt
	_, err = w.verify(leafID, "a2")
	e = requireRefusal(t, err, errs.MandateExpired, root.ID.String())
	require.Equal(t, "mandate "+root.ID.String()+" in the chain expired at "+"2026-03-31T12:00:00+00:00", e.Message)
	w.now = t0

	// Revocation comes before expiry, and names the revoked middle link.
	require.NoError(t, w.tx(func(tx bun.IDB) error {
		_, err := w.svc.RevokeSubtree(w.ctx, tx, middle.ID)
		return err
	}))
	w.now = leaf.ExpiresAt
	_, err = w.verify(leafID, "a2")
	e = requireRefusal(t, err, errs.MandateRevoked, middle.ID.String())
	require.Equal(t, "mandate "+middle.ID.String()+" in the chain was revoked", e.Message)
	w.now = t0

	// A broken chain comes before revocation.
	w.exec("ALTER TABLE mandates DISABLE TRIGGER mandates_signed")
	w.exec("UPDATE mandates SET delegations_left = 0 WHERE id = ?", leafID)
	_, err = w.verify(leafID, "a2")
	requireRefusal(t, err, errs.ChainBroken, leafID)
}

func TestVerifyIssuesOneQueryWhateverTheDepth(t *testing.T) {
	w := newWorld(t)
	links := w.line(map[string]float64{"thb": 1}, "a2", "a3", "a4", "a5", "a6")
	queriesFor := func(m *mandate.Mandate) int64 {
		var n int64
		stop := w.d.Watch(func(string) { n++ })
		c, err := w.svc.Verify(w.ctx, w.d, m.ID.String(), m.Holder)
		stop()
		require.NoError(t, err)
		require.Len(t, c, m.Depth+1)
		return n
	}
	require.Equal(t, int64(1), queriesFor(links[0]))
	require.Equal(t, int64(1), queriesFor(links[1]))
	require.Equal(t, int64(1), queriesFor(links[5]))
}

// A chain stands only while the principals along it do (docs/security.md,
// finding 4): a banned holder or a disabled root issuer ends it, a paused
// holder suspends it and everything under it until it is resumed; the
// refusal names the highest link at fault.
func TestVerifyChecksEveryPrincipalAlongTheChain(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3")
	leaf, middle, root := links[2].ID.String(), links[1].ID.String(), links[0].ID.String()
	refusal := func(code errs.Code, at string) {
		t.Helper()
		_, err := w.verify(leaf, "a3")
		requireRefusal(t, err, code, at)
	}
	w.exec("UPDATE agents SET status = 'paused' WHERE id = 'a2'")
	refusal(errs.AgentPaused, middle)
	w.exec("UPDATE agents SET status = 'active' WHERE id = 'a2'")
	_, err := w.verify(leaf, "a3")
	require.NoError(t, err, "resuming the holder resumes the chain")

	w.exec("UPDATE agents SET status = 'banned' WHERE id = 'a2'")
	refusal(errs.MandateRevoked, middle)
	w.exec("UPDATE agents SET status = 'active' WHERE id = 'a2'")

	w.exec("UPDATE humans SET disabled_at = now() WHERE id = 'boss'")
	refusal(errs.MandateRevoked, root)
	w.exec("UPDATE agents SET status = 'banned' WHERE id = 'a2'")
	refusal(errs.MandateRevoked, root)
}

// Another organization's agent asking for a mandate hears exactly what it
// would of a missing one, not who holds it (MANDATE-007); a caller that is
// no agent of any organization is refused as the wrong holder, the chain
// being in one organization.
func TestVerifyAnswersAnotherOrganizationsCallerAsIfTheMandateWereMissing(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, nil, 1)
	id := root.ID.String()
	_, err := w.verify(id, "r1")
	e := requireRefusal(t, err, errs.ChainBroken, id)
	require.Equal(t, "mandate "+id+" does not exist", e.Message)

	_, err = w.verify(id, "nobody")
	e = requireRefusal(t, err, errs.ChainBroken, id)
	require.Equal(t, "mandate "+id+" is held by a1, not by the caller nobody", e.Message)
}
