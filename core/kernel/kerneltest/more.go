package kerneltest

import (
	"context"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
)

// Org makes another organization through identity.SignUp, as its owner's
// first sign-in would, and returns its id (derived from name, with a random
// suffix). The owner is person owner with the email <owner>@example.com,
// bound to the issuer's account sub-<owner>, so AdminToken(owner) signs in
// as them; Person(owner, …) and Project(owner, …) add to the organization.
func (w *World) Org(name, owner string) string {
	w.T.Helper()
	out, err := w.Identity.SignUp(context.Background(), identity.SignUpPolicy{Enabled: true, MaxPerHour: 1000},
		identity.SignUpInput{Issuer: w.Issuer.URL, Subject: "sub-" + owner, VerifiedEmail: owner + "@example.com",
			OrgName: name, DisplayName: owner, AcceptTerms: true, TermsVersion: "test"})
	require.NoError(w.T, err)
	require.Equal(w.T, owner, out.Human.ID, "the email's local part names the owner")
	return out.Org.ID
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
