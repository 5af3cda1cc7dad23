package kerneltest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
)

// Org makes organization id with its owner through identity.CreateOrg, as
// sign-up does, runs the kernel's "organization created" hooks (the
// board's approval rules, when the board is registered) and logs
// org.created, in one transaction (see MakeOrg). AdminToken(owner) signs in
// as the owner; Person(owner, …) and Project(owner, …) add to it.
func (w *World) Org(id, owner string) string {
	w.T.Helper()
	MakeOrg(w.T, w.DB, w.Log, w.Identity, w.Issuer.URL, id, owner, kernel.Publisher(w.Kernel, seams.OrgCreatedHook))
	return id
}

// MakeOrg makes organization id with person owner (each named after its
// id, capitalized, as Person names people), whose email is
// <owner>@example.com and whose account is sub-<owner> at issuer, through
// identity.CreateOrg; publishes seams.OrgCreatedHook through created (nil:
// none) and logs org.created
// in the same transaction. It is for tests that have no World.
func MakeOrg(t testing.TB, d *db.DB, log *ledger.Log, ident *identity.Service, issuer, id, owner string,
	created func(context.Context, bun.IDB, seams.OrgCreated) error) {
	t.Helper()
	require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		if _, err := ident.CreateOrg(ctx, tx, identity.NewOrg{ID: id, Name: capital(id), TermsVersion: "test",
			OwnerID: owner, OwnerName: capital(owner), Email: owner + "@example.com", Issuer: issuer,
			Subject: "sub-" + owner}); err != nil {
			return err
		}
		if created != nil {
			if err := created(ctx, tx, seams.OrgCreated{OrgID: id}); err != nil {
				return err
			}
		}
		_, err := log.Append(ctx, tx, ledger.Entry{Actor: "human:" + owner, Action: "org.created", OrgID: id,
			Payload: map[string]any{"org_id": id, "owner": owner}})
		return err
	}))
}

// Mandate issues a further root mandate from person by to agent holder with
// scope, one delegation and 30 days, through mandate.Service.IssueRoot,
// and returns its id.
func (w *World) Mandate(by, holder string, scope ...string) string {
	w.T.Helper()
	var m *mandate.Mandate
	require.NoError(w.T, w.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		m, err = w.Mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: by, Holder: holder, Scope: scope,
			Delegations: 1, ExpiresAt: time.Now().Add(30 * 24 * time.Hour)})
		return err
	}))
	return m.ID.String()
}
