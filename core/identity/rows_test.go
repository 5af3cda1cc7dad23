package identity_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

func ptr[T any](v T) *T { return &v }

// RequireActingPerson refuses a caller that names no one, then checks the
// one named as RequirePerson does.
func TestRequireActingPersonRefusesNoOneNamed(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	p, err := identity.RequireActingPerson(ctx, f.d, "", identity.Viewer)
	require.Nil(t, p)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	require.Equal(t, "name the person acting", errs.Public(err).Message)

	p, err = identity.RequireActingPerson(ctx, f.d, "val", identity.Approver)
	require.NoError(t, err)
	require.Equal(t, "val", p.ID)
	_, err = identity.RequireActingPerson(ctx, f.d, "vic", identity.Approver)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	require.Equal(t, "vic is viewer; this needs approver", errs.Public(err).Message)
}

// AgentOwner names an agent's owner and client, or answers not_found;
// FirstOwner is an organization's oldest enabled owner, or "".
func TestAgentOwnerAndFirstOwner(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	f.agent(t, "code-web", "web")
	owner, client, err := identity.AgentOwner(ctx, f.d, "code-web")
	require.NoError(t, err)
	require.Equal(t, []string{"ana", "code"}, []string{owner, client})
	owner, client, err = identity.AgentOwner(ctx, f.d, "ghost")
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	require.Equal(t, []string{"", ""}, []string{owner, client})

	f.exec(t, `INSERT INTO humans (id, org_id, name, role, created_at) VALUES ('al', 'acme', 'Al', 'owner', now() + interval '1 minute'),
		('ace', 'acme', 'Ace', 'viewer', now() - interval '1 day')`)
	f.exec(t, `INSERT INTO orgs (id, name, system_chain) VALUES ('empty', 'Empty', '_system:empty')`)
	for org, want := range map[string]string{"default": "ana", "acme": "bo", "empty": "", "nowhere": ""} {
		got, err := identity.FirstOwner(ctx, f.d, org)
		require.NoError(t, err, org)
		require.Equal(t, want, got, org)
	}
	f.exec(t, `UPDATE humans SET disabled_at = now() WHERE id = 'bo'`)
	got, err := identity.FirstOwner(ctx, f.d, "acme")
	require.NoError(t, err)
	require.Equal(t, "al", got, "a disabled owner is skipped")
}

// SetHumanFields changes only the fields given; an empty email removes the
// address; Unbind frees the account; the database's refusals come back in
// the board's words.
func TestSetHumanFieldsChangesOnlyWhatIsGiven(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	f.exec(t, `UPDATE humans SET email = 'val@example.com', auth_issuer = 'iss', auth_sub = 'sub-val' WHERE id = 'val'`)

	p, err := f.svc.SetHumanFields(ctx, f.d, "val", identity.HumanFields{Name: ptr("Valerie")})
	require.NoError(t, err)
	require.Equal(t, "Valerie", p.Name)
	require.Equal(t, identity.Approver, p.Role)
	require.Equal(t, ptr("val@example.com"), p.Email, "no Email leaves the address")
	require.Nil(t, p.DisabledAt)
	bound, err := f.svc.AccountPerson(ctx, f.d, "iss", "sub-val")
	require.NoError(t, err)
	require.Equal(t, "val", bound.ID, "no Unbind keeps the account")

	p, err = f.svc.SetHumanFields(ctx, f.d, "val", identity.HumanFields{Email: ptr("v@example.com"), Role: ptr(identity.Owner)})
	require.NoError(t, err)
	require.Equal(t, ptr("v@example.com"), p.Email)
	require.Equal(t, identity.Owner, p.Role)
	require.Equal(t, "Valerie", p.Name)

	p, err = f.svc.SetHumanFields(ctx, f.d, "val", identity.HumanFields{Email: ptr(""), Disabled: ptr(true), Unbind: true})
	require.NoError(t, err)
	require.Nil(t, p.Email, "an empty email removes the address")
	require.NotNil(t, p.DisabledAt)
	bound, err = f.svc.AccountPerson(ctx, f.d, "iss", "sub-val")
	require.NoError(t, err)
	require.Nil(t, bound, "unbound")

	p, err = f.svc.SetHumanFields(ctx, f.d, "val", identity.HumanFields{Disabled: ptr(false)})
	require.NoError(t, err)
	require.Nil(t, p.DisabledAt)

	p, err = f.svc.SetHumanFields(ctx, f.d, "val", identity.HumanFields{Email: ptr("ANA@example.com")})
	require.Nil(t, p)
	require.Equal(t, errs.IDTaken, errs.CodeOf(err), "%v", err)
	require.Equal(t, "human val is already taken", errs.Public(err).Message)
	_, err = f.svc.SetHumanFields(ctx, f.d, "nobody", identity.HumanFields{Name: ptr("X")})
	require.ErrorIs(t, err, sql.ErrNoRows)
}

// CreateOrg makes the organization and its owner, bound to the account
// that signed up; an id already used is the database's refusal, id_taken.
func TestCreateOrgMakesTheOrganizationAndItsBoundOwner(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	in := identity.NewOrg{ID: "beta", Name: "Beta", TermsVersion: "2024-01", OwnerID: "bea", OwnerName: "Bea",
		Email: "bea@beta.example", Issuer: issuer, Subject: "sub-bea"}
	p, err := f.svc.CreateOrg(ctx, f.d, in)
	require.NoError(t, err)
	require.Equal(t, "bea", p.ID)
	require.Equal(t, "beta", p.OrgID)
	require.Equal(t, identity.Owner, p.Role)
	require.Equal(t, ptr("bea@beta.example"), p.Email)
	o, err := f.svc.GetOrg(ctx, f.d, "beta")
	require.NoError(t, err)
	require.Equal(t, ptr("2024-01"), o.TermsVersion)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM orgs WHERE id = 'beta' AND system_chain = '_system:beta' AND created_by = 'bea'`))
	signedIn, err := f.svc.SignIn(ctx, issuer, "sub-bea", "")
	require.NoError(t, err)
	require.Equal(t, "bea", signedIn.ID)

	in.OwnerID, in.Subject = "bea2", "sub-bea2"
	_, err = f.svc.CreateOrg(ctx, f.d, in)
	require.Equal(t, errs.IDTaken, errs.CodeOf(err), "%v", err)
	require.Equal(t, "organization beta is already taken", errs.Public(err).Message)

	in.ID, in.OwnerID = "gamma", "ana"
	_, err = f.svc.CreateOrg(ctx, f.d, in)
	require.Equal(t, errs.IDTaken, errs.CodeOf(err), "%v", err)
	require.Equal(t, "human ana is already taken", errs.Public(err).Message)
}

// SetOrgSecret writes only a secret column, and with was only while the
// column still holds it; it reports whether it changed the row.
func TestSetOrgSecretReportsWhetherItChangedTheRow(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	const col = "slack_webhook_url"
	secret := func() *string {
		var s *string
		require.NoError(t, f.d.NewRaw(`SELECT slack_webhook_url FROM orgs WHERE id = 'default'`).Scan(ctx, &s))
		return s
	}
	steps := []struct {
		name        string
		sealed, was *string
		changed     bool
		after       *string
	}{
		{"set", ptr("s1"), nil, true, ptr("s1")},
		{"resealed over another value", ptr("s2"), ptr("other"), false, ptr("s1")},
		{"resealed over its value", ptr("s2"), ptr("s1"), true, ptr("s2")},
		{"removed", nil, nil, true, nil},
	}
	for _, st := range steps {
		changed, err := f.svc.SetOrgSecret(ctx, f.d, "default", col, st.sealed, st.was)
		require.NoError(t, err, st.name)
		require.Equal(t, st.changed, changed, st.name)
		require.Equal(t, st.after, secret(), st.name)
	}
	changed, err := f.svc.SetOrgSecret(ctx, f.d, "nowhere", col, ptr("s"), nil)
	require.NoError(t, err)
	require.False(t, changed, "no such organization")
	_, err = f.svc.SetOrgSecret(ctx, f.d, "default", "name", ptr("s"), nil)
	require.ErrorContains(t, err, "orgs.name holds no secret")

	ctx, cancel := context.WithCancel(ctx)
	cancel()
	changed, err = f.svc.SetOrgSecret(ctx, f.d, "default", col, ptr("s"), nil)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, changed)
}
