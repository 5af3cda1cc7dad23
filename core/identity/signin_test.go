package identity_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

const issuer = "https://accounts.example"

// signInPeople is withPeople plus ana bound to the account sub-ana, val
// bound to sub-val and then disabled, and ivy, invited as ivy@example.com.
func signInPeople(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.svc.AddHuman(ctx, "ana", identity.HumanInput{ID: "ivy", Name: "Ivy", Role: identity.Viewer, Email: "ivy@example.com"})
	require.NoError(t, err)
	p, err := f.svc.AcceptInvitation(ctx, f.d, "ana", " ANA@example.com ", issuer, "sub-ana")
	require.NoError(t, err)
	require.NotNil(t, p)
	require.Equal(t, "ana", p.ID)
	f.exec(t, `UPDATE humans SET auth_issuer = ?, auth_sub = 'sub-val', disabled_at = now() WHERE id = 'val'`, issuer)
	return f
}

// Sign-in admits only the enabled person bound to the account; anyone else
// is refused, and told when their verified email has an invitation to
// accept.
func TestASignInAdmitsOnlyTheEnabledPersonBoundToTheAccount(t *testing.T) {
	ctx := context.Background()
	f := signInPeople(t)
	cases := []struct {
		name, issuer, sub, email string
		code                     errs.Code
		message                  string
	}{
		{"without an issuer", "", "sub-ana", "", errs.NotRegistered, identity.NotRegisteredMessage},
		{"without a subject", issuer, "", "", errs.NotRegistered, identity.NotRegisteredMessage},
		{"a disabled person", issuer, "sub-val", "", errs.AccountDisabled, "this account is disabled; ask an owner of your organization"},
		{"another issuer's account", "https://other.example", "sub-ana", "", errs.NotRegistered, identity.NotRegisteredMessage},
		{"no one, no email", issuer, "sub-new", "", errs.NotRegistered, identity.NotRegisteredMessage},
		{"no one, a blank email", issuer, "sub-new", "  ", errs.NotRegistered, identity.NotRegisteredMessage},
		{"no one, an email with no invitation", issuer, "sub-new", "nobody@example.com", errs.NotRegistered, identity.NotRegisteredMessage},
		{"no one, an email already bound", issuer, "sub-new", "ana@example.com", errs.NotRegistered, identity.NotRegisteredMessage},
		{"no one, an invited email", issuer, "sub-new", " IVY@example.com ", errs.NotRegistered, identity.InvitedMessage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := f.svc.SignIn(ctx, tc.issuer, tc.sub, tc.email)
			require.Nil(t, p)
			require.Equal(t, tc.code, errs.CodeOf(err), "%v", err)
			require.Equal(t, tc.message, errs.Public(err).Message)
		})
	}

	p, err := f.svc.SignIn(ctx, issuer, "sub-ana", "someone@else.example")
	require.NoError(t, err)
	require.Equal(t, "ana", p.ID)
	require.Equal(t, identity.Owner, p.Role)
	require.Nil(t, p.DisabledAt)
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM humans WHERE auth_sub = 'sub-new'`), "nobody joins by signing in")
}

// A failing read is reported as itself, not as "not registered".
func TestASignInWhoseReadFailsReturnsTheFailure(t *testing.T) {
	f := signInPeople(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := f.svc.SignIn(ctx, issuer, "sub-ana", "")
	require.Nil(t, p)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, errs.Internal, errs.CodeOf(err))
}

// The invitations of an email are its enabled people bound to no account,
// oldest first, in any case; accepting one binds it, once.
func TestInvitationsAreAcceptedOnceByTheirEmail(t *testing.T) {
	ctx := context.Background()
	f := signInPeople(t)
	// ivo is invited after ivy, so oldest first is not id order.
	f.exec(t, `INSERT INTO humans (id, org_id, name, role, email, created_at)
		VALUES ('ivo', 'acme', 'Ivo', 'approver', 'Ivy@Example.com', now() + interval '1 minute')`)
	f.exec(t, `INSERT INTO humans (id, org_id, name, role, email, disabled_at) VALUES ('ivx', 'acme', 'Ivx', 'viewer', 'ivy@example.net', now())`)

	inv, err := f.svc.Invitations(ctx, f.d, " ivy@EXAMPLE.com ")
	require.NoError(t, err)
	require.Len(t, inv, 2)
	require.Equal(t, []string{"ivy", "ivo"}, []string{inv[0].HumanID, inv[1].HumanID})
	require.Equal(t, identity.Invitation{HumanID: "ivy", Name: "Ivy", Role: identity.Viewer, OrgID: "default",
		OrgName: "Default organization", InvitedAt: inv[0].InvitedAt}, inv[0])
	require.Equal(t, "Acme", inv[1].OrgName)
	require.Equal(t, identity.Approver, inv[1].Role)
	require.False(t, inv[0].InvitedAt.IsZero())

	none, err := f.svc.Invitations(ctx, f.d, "ivy@example.net")
	require.NoError(t, err)
	require.Equal(t, []identity.Invitation{}, none, "a disabled person is no invitation")

	p, err := f.svc.AcceptInvitation(ctx, f.d, "ivo", "wrong@example.com", issuer, "sub-ivy")
	require.NoError(t, err)
	require.Nil(t, p, "not that email's invitation")
	p, err = f.svc.AcceptInvitation(ctx, f.d, "ivo", "IVY@example.com", issuer, "sub-ivy")
	require.NoError(t, err)
	require.Equal(t, "ivo", p.ID)
	require.Equal(t, "acme", p.OrgID)
	p, err = f.svc.AcceptInvitation(ctx, f.d, "ivo", "ivy@example.com", issuer, "sub-other")
	require.NoError(t, err)
	require.Nil(t, p, "already accepted")

	bound, err := f.svc.AccountPerson(ctx, f.d, issuer, "sub-ivy")
	require.NoError(t, err)
	require.Equal(t, "ivo", bound.ID)
	inv, err = f.svc.Invitations(ctx, f.d, "ivy@example.com")
	require.NoError(t, err)
	require.Len(t, inv, 1)
	require.Equal(t, "ivy", inv[0].HumanID)

	// The account is ivo's now: binding it to ivy too is the database's
	// refusal, in the board's words.
	p, err = f.svc.AcceptInvitation(ctx, f.d, "ivy", "ivy@example.com", issuer, "sub-ivy")
	require.Nil(t, p)
	require.Equal(t, errs.IDTaken, errs.CodeOf(err), "%v", err)
	require.Equal(t, "the account of human ivy is already taken", errs.Public(err).Message)
}

func TestInvitationsWhoseReadFailsReturnTheFailure(t *testing.T) {
	f := signInPeople(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	inv, err := f.svc.Invitations(ctx, f.d, "ivy@example.com")
	require.ErrorIs(t, err, context.Canceled)
	require.Nil(t, inv)
}
