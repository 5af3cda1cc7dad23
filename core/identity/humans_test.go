package identity_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

func TestUpdateHuman(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.d.ExecContext(ctx, `UPDATE humans SET auth_issuer = 'https://i', auth_sub = 's-val', email = 'val@example.com' WHERE id = 'val'`)
	require.NoError(t, err)

	p, err := f.svc.UpdateHuman(ctx, "ana", "val", identity.HumanUpdate{Name: ptr("  Valentina "), Role: ptr(identity.Owner)})
	require.NoError(t, err)
	require.Equal(t, "Valentina", p.Name)
	require.Equal(t, identity.Owner, p.Role)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans WHERE id = 'val' AND auth_sub = 's-val'`), "the binding stays while the email does")

	_, err = f.svc.UpdateHuman(ctx, "ana", "val", identity.HumanUpdate{Email: ptr("VAL@example.com")})
	require.NoError(t, err)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans WHERE id = 'val' AND auth_sub = 's-val'`), "a change of case is the same address")
	_, err = f.svc.UpdateHuman(ctx, "ana", "val", identity.HumanUpdate{Email: ptr("v@example.com")})
	require.NoError(t, err)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans WHERE id = 'val' AND auth_sub IS NULL AND auth_issuer IS NULL`), "a new email clears the binding")
	p, err = f.svc.UpdateHuman(ctx, "ana", "val", identity.HumanUpdate{Email: ptr("")})
	require.NoError(t, err)
	require.Nil(t, p.Email)

	p, err = f.svc.UpdateHuman(ctx, "ana", "vic", identity.HumanUpdate{Disabled: ptr(true)})
	require.NoError(t, err)
	require.NotNil(t, p.DisabledAt)
	p, err = f.svc.UpdateHuman(ctx, "ana", "vic", identity.HumanUpdate{Disabled: ptr(false)})
	require.NoError(t, err)
	require.Nil(t, p.DisabledAt)
	require.Equal(t, 6, f.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.human.update' AND outcome = 'ok'`))
}

func TestUpdateHumanRefusals(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	cases := []struct {
		name, by, id string
		upd          identity.HumanUpdate
		want         errs.Code
	}{
		{"ApproverCannot", "val", "vic", identity.HumanUpdate{Name: ptr("X")}, errs.Forbidden},
		{"NothingToChange", "ana", "vic", identity.HumanUpdate{}, errs.InvalidRequest},
		{"BlankName", "ana", "vic", identity.HumanUpdate{Name: ptr("  ")}, errs.InvalidRequest},
		{"BadRole", "ana", "vic", identity.HumanUpdate{Role: ptr(identity.Role("admin"))}, errs.InvalidRequest},
		{"BadEmail", "ana", "vic", identity.HumanUpdate{Email: ptr("nope")}, errs.InvalidRequest},
		{"EmailTaken", "ana", "vic", identity.HumanUpdate{Email: ptr("ANA@example.com")}, errs.IDTaken},
		{"Missing", "ana", "nobody", identity.HumanUpdate{Name: ptr("X")}, errs.NotFound},
		{"OtherOrganization", "ana", "bo", identity.HumanUpdate{Name: ptr("X")}, errs.NotFound},
		{"LastOwnerDemoted", "ana", "ana", identity.HumanUpdate{Role: ptr(identity.Viewer)}, errs.InvalidRequest},
		{"LastOwnerDisabled", "ana", "ana", identity.HumanUpdate{Disabled: ptr(true)}, errs.InvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.UpdateHuman(ctx, tc.by, tc.id, tc.upd)
			require.Equal(t, tc.want, errs.CodeOf(err), "%v", err)
		})
	}
	_, errOther := f.svc.UpdateHuman(ctx, "ana", "bo", identity.HumanUpdate{Name: ptr("X")})
	_, errMissing := f.svc.UpdateHuman(ctx, "ana", "zz", identity.HumanUpdate{Name: ptr("X")})
	require.Equal(t, strings.ReplaceAll(errOther.Error(), "bo", "?"), strings.ReplaceAll(errMissing.Error(), "zz", "?"))
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans WHERE org_id = 'default' AND role = 'owner' AND disabled_at IS NULL`))
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM humans WHERE name = 'X'`), "refusals change nothing")
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM entries WHERE org_id = 'acme'`))

	// With a second owner, the first may step down.
	_, err := f.svc.UpdateHuman(ctx, "ana", "val", identity.HumanUpdate{Role: ptr(identity.Owner)})
	require.NoError(t, err)
	_, err = f.svc.UpdateHuman(ctx, "val", "ana", identity.HumanUpdate{Role: ptr(identity.Viewer)})
	require.NoError(t, err)
	_, err = f.svc.UpdateHuman(ctx, "val", "val", identity.HumanUpdate{Role: ptr(identity.Approver)})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}
