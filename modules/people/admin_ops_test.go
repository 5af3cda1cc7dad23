package people_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

// office is a board with the people module: in organization default, ana
// (owner), val (approver), vic (viewer) and the projects web, api and prod;
// in organization acme, bo (owner) with the project rocket.
func office(t *testing.T) (*kerneltest.World, *people.Module) {
	t.Helper()
	mod := people.New()
	w := kerneltest.New(t, kerneltest.Options{}, mod)
	w.Office()
	w.Org("acme", "bo")
	w.Project("bo", "rocket", false)
	return w, mod
}

func TestUpdateHuman(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	w.Exec(`UPDATE humans SET auth_issuer = 'https://i', auth_sub = 's-val' WHERE id = 'val'`)

	p, err := mod.Service().UpdateHuman(ctx, "ana", "val", people.HumanUpdate{Name: ptr("  Valentina "), Role: ptr(identity.Owner)})
	require.NoError(t, err)
	require.Equal(t, "Valentina", p.Name)
	require.Equal(t, identity.Owner, p.Role)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM humans WHERE id = 'val' AND auth_sub = 's-val'`), "the binding stays while the email does")

	_, err = mod.Service().UpdateHuman(ctx, "ana", "val", people.HumanUpdate{Email: ptr("VAL@example.com")})
	require.NoError(t, err)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM humans WHERE id = 'val' AND auth_sub = 's-val'`), "a change of case is the same address")
	_, err = mod.Service().UpdateHuman(ctx, "ana", "val", people.HumanUpdate{Email: ptr("v@example.com")})
	require.NoError(t, err)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM humans WHERE id = 'val' AND auth_sub IS NULL AND auth_issuer IS NULL`), "a new email clears the binding")
	p, err = mod.Service().UpdateHuman(ctx, "ana", "val", people.HumanUpdate{Email: ptr("")})
	require.NoError(t, err)
	require.Nil(t, p.Email)

	p, err = mod.Service().UpdateHuman(ctx, "ana", "vic", people.HumanUpdate{Disabled: ptr(true)})
	require.NoError(t, err)
	require.NotNil(t, p.DisabledAt)
	p, err = mod.Service().UpdateHuman(ctx, "ana", "vic", people.HumanUpdate{Disabled: ptr(false)})
	require.NoError(t, err)
	require.Nil(t, p.DisabledAt)
	require.Equal(t, 6, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.human.update' AND outcome = 'ok'`))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.human.update' AND e.actor = 'human:ana'
		AND p.content = '{"human_id": "vic", "changes": {"disabled": false}}'::jsonb`), "the log names the change")
}

func TestUpdateHumanRefusals(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	acme := w.Count(`SELECT count(*) FROM entries WHERE org_id = 'acme'`)
	cases := []struct {
		name, by, id string
		upd          people.HumanUpdate
		want         errs.Code
	}{
		{"ApproverCannot", "val", "vic", people.HumanUpdate{Name: ptr("X")}, errs.Forbidden},
		{"NothingToChange", "ana", "vic", people.HumanUpdate{}, errs.InvalidRequest},
		{"BlankName", "ana", "vic", people.HumanUpdate{Name: ptr("  ")}, errs.InvalidRequest},
		{"BadRole", "ana", "vic", people.HumanUpdate{Role: ptr(identity.Role("admin"))}, errs.InvalidRequest},
		{"BadEmail", "ana", "vic", people.HumanUpdate{Email: ptr("nope")}, errs.InvalidRequest},
		{"EmailTaken", "ana", "vic", people.HumanUpdate{Email: ptr("ANA@example.com")}, errs.IDTaken},
		{"Missing", "ana", "nobody", people.HumanUpdate{Name: ptr("X")}, errs.NotFound},
		{"OtherOrganization", "ana", "bo", people.HumanUpdate{Name: ptr("X")}, errs.NotFound},
		{"LastOwnerDemoted", "ana", "ana", people.HumanUpdate{Role: ptr(identity.Viewer)}, errs.InvalidRequest},
		{"LastOwnerDisabled", "ana", "ana", people.HumanUpdate{Disabled: ptr(true)}, errs.InvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mod.Service().UpdateHuman(ctx, tc.by, tc.id, tc.upd)
			require.Equal(t, tc.want, errs.CodeOf(err), "%v", err)
		})
	}
	_, errOther := mod.Service().UpdateHuman(ctx, "ana", "bo", people.HumanUpdate{Name: ptr("X")})
	_, errMissing := mod.Service().UpdateHuman(ctx, "ana", "zz", people.HumanUpdate{Name: ptr("X")})
	require.Equal(t, strings.ReplaceAll(errOther.Error(), "bo", "?"), strings.ReplaceAll(errMissing.Error(), "zz", "?"))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM humans WHERE org_id = 'default' AND role = 'owner' AND disabled_at IS NULL`))
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM humans WHERE name = 'X'`), "refusals change nothing")
	require.Equal(t, acme, w.Count(`SELECT count(*) FROM entries WHERE org_id = 'acme'`))

	// With a second owner, the first may step down.
	_, err := mod.Service().UpdateHuman(ctx, "ana", "val", people.HumanUpdate{Role: ptr(identity.Owner)})
	require.NoError(t, err)
	_, err = mod.Service().UpdateHuman(ctx, "val", "ana", people.HumanUpdate{Role: ptr(identity.Viewer)})
	require.NoError(t, err)
	_, err = mod.Service().UpdateHuman(ctx, "val", "val", people.HumanUpdate{Role: ptr(identity.Approver)})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}

func TestSetProjectFlagsConfinedToTheOrganization(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	acme := w.Count(`SELECT count(*) FROM entries WHERE org_id = 'acme'`)
	_, errOther := mod.Service().SetProjectFlags(ctx, "ana", "rocket", people.ProjectFlags{Frozen: ptr(true)})
	_, errMissing := mod.Service().SetProjectFlags(ctx, "ana", "nowhere", people.ProjectFlags{Frozen: ptr(true)})
	require.Equal(t, errs.NotFound, errs.CodeOf(errOther))
	require.Equal(t, strings.ReplaceAll(errOther.Error(), "rocket", "X"), strings.ReplaceAll(errMissing.Error(), "nowhere", "X"))
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM projects WHERE id = 'rocket' AND frozen`))
	// The refusal is logged in ana's organization, not in acme's chain.
	require.Equal(t, acme, w.Count(`SELECT count(*) FROM entries WHERE org_id = 'acme'`))

	pr, err := mod.Service().SetProjectFlags(ctx, "ana", "web", people.ProjectFlags{Frozen: ptr(true)})
	require.NoError(t, err)
	require.True(t, pr.Frozen)
	require.False(t, pr.Production, "a flag not given stays as it was")
	_, err = mod.Service().SetProjectFlags(ctx, "ana", "web", people.ProjectFlags{})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}

// A person's name is 1-200 characters, counted as characters, not bytes:
// an owner may rename someone to a Thai name of exactly 200 (600 bytes);
// one of 201 is refused with invalid_request and changes nothing.
func TestUpdateHumanNameIsAtMostTwoHundredCharacters(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	atLimit := strings.Repeat("ก", 200)
	p, err := mod.Service().UpdateHuman(ctx, "ana", "vic", people.HumanUpdate{Name: ptr(atLimit)})
	require.NoError(t, err, "exactly 200 characters is allowed")
	require.Equal(t, atLimit, p.Name)

	_, err = mod.Service().UpdateHuman(ctx, "ana", "vic", people.HumanUpdate{Name: ptr(atLimit + "ก")})
	require.EqualError(t, err, "invalid_request: a person needs a name of 1-200 characters")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM humans WHERE id = 'vic' AND name = ?`, atLimit), "a refusal keeps the name")
}
