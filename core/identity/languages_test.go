package identity_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// An organization speaks English until it chooses Thai; a person's own
// choice overrides it for texts addressed to them alone, and clearing it
// follows the organization again. Another organization is untouched.
func TestPersonLanguageOverridesTheOrganizations(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	lang := func(id string) string {
		l, err := f.svc.PersonLanguage(ctx, f.d, id)
		require.NoError(t, err)
		return l
	}
	org := func(id string) string {
		l, err := f.svc.OrgLanguage(ctx, f.d, id)
		require.NoError(t, err)
		return l
	}
	require.Equal(t, "en", org("default"))
	require.Equal(t, "en", lang("val"))

	require.NoError(t, f.svc.SetOrgLanguage(ctx, f.d, "default", "th"))
	require.Equal(t, "th", org("default"))
	require.Equal(t, "th", lang("val"), "a person without a choice follows the organization")
	require.Equal(t, "en", org("acme"))
	require.Equal(t, "en", lang("bo"))

	en := "en"
	p, err := f.svc.SetHumanLanguage(ctx, f.d, "val", &en)
	require.NoError(t, err)
	require.Equal(t, "en", *p.Language)
	require.Equal(t, "en", lang("val"), "the person's choice overrides the organization's")
	require.Equal(t, "th", lang("vic"))

	p, err = f.svc.SetHumanLanguage(ctx, f.d, "val", nil)
	require.NoError(t, err)
	require.Nil(t, p.Language)
	require.Equal(t, "th", lang("val"), "cleared, the person follows the organization again")

	o, err := f.svc.GetOrg(ctx, f.d, "default")
	require.NoError(t, err)
	require.Equal(t, "th", o.Language)
}

func TestUnknownLanguagesAreRefused(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	err := f.svc.SetOrgLanguage(ctx, f.d, "default", "fr")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "language must be one of en, th")
	fr := "fr"
	_, err = f.svc.SetHumanLanguage(ctx, f.d, "val", &fr)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM orgs WHERE language <> 'en'`))
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM humans WHERE language IS NOT NULL`))

	_, err = f.d.ExecContext(ctx, `UPDATE orgs SET language = 'fr'`)
	require.Error(t, err, "the database refuses a language the board does not speak")
}
