package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/auth"
	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const audience = "https://board.test/admin"

type fixture struct {
	d      *db.DB
	people *identity.Service
	iss    *authtest.Issuer
	admin  *auth.Admin
}

// setup makes ana (owner, ana@example.com) and vic (viewer,
// vic@example.com), and an authenticator whose issuer runs behind the
// plugin wire.
func setup(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{d: pgtest.New(t), iss: authtest.New(t)}
	f.people = identity.NewService(f.d, ledger.New(nil), nil)
	_, err := f.people.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	_, err = f.people.AddHuman(ctx, "ana", identity.HumanInput{ID: "vic", Name: "Vic", Role: identity.Viewer, Email: "vic@example.com"})
	require.NoError(t, err)
	f.admin = auth.NewAdmin(f.people, auth.Options{Issuer: plugintest.Issuer(t, f.iss), Audience: audience, RequireMFA: true})
	return f
}

func (f *fixture) bearer(t *testing.T, c authtest.Claims) string {
	if c.Audience == nil {
		c.Audience = []string{audience}
	}
	return "Bearer " + f.iss.Token(t, c)
}

func (f *fixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, f.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

func TestAdminRefusesTokensThatDoNotProveAPerson(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ana := authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true}
	with := func(change func(c *authtest.Claims)) string {
		c := ana
		change(&c)
		return f.bearer(t, c)
	}
	for _, tc := range []struct {
		name, header, says string
	}{
		{"NoHeader", "", "Authorization: Bearer"},
		{"NotBearer", "Basic YW5hOnB3", "Authorization: Bearer"},
		{"EmptyBearer", "Bearer ", "Authorization: Bearer"},
		{"AgentToken", "Bearer pact_" + strings.Repeat("a", 43), "the Admin API takes a person's OAuth token"},
		{"MFAMissing", with(func(c *authtest.Claims) { c.AMR = []string{"pwd"} }), "needs a sign-in with a second factor"},
		{"AgentURLAudience", with(func(c *authtest.Claims) { c.Audience = []string{"https://board.test/mcp/a/code-web"} }), "audience"},
		{"Expired", with(func(c *authtest.Claims) { c.ExpiresAt = time.Now().Add(-time.Hour) }), "token expired at"},
		{"UnknownKid", with(func(c *authtest.Claims) { c.Kid = "rotated-away" }), `unknown key (kid "rotated-away")`},
		{"ForgedSignature", with(func(c *authtest.Claims) { c.SignWith = other }), "signature does not verify"},
		{"OtherIssuer", with(func(c *authtest.Claims) { c.Issuer = "https://evil.test" }), "token refused"},
		{"NotAJWT", "Bearer not-a-jwt", "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := f.admin.Authenticate(ctx, tc.header)
			require.Nil(t, p)
			require.Equal(t, errs.Unauthorized, errs.CodeOf(err), "%v", err)
			require.Contains(t, err.Error(), tc.says)
		})
	}
	require.Zero(t, f.count(t, `SELECT count(*) FROM humans WHERE auth_sub IS NOT NULL`), "no refused token binds anyone")
}

func TestAdminWithoutIssuerOrMFARule(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	token := f.bearer(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true, AMR: []string{}})

	_, err := auth.NewAdmin(f.people, auth.Options{Audience: audience}).Authenticate(ctx, token)
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
	require.Contains(t, err.Error(), "OAuth is not configured")

	f.accept(t, "ana", "sub-ana")
	lax := auth.NewAdmin(f.people, auth.Options{Issuer: plugintest.Issuer(t, f.iss), Audience: audience, RequireMFA: false})
	p, err := lax.Authenticate(ctx, token)
	require.NoError(t, err, "PACT_ADMIN_REQUIRE_MFA=0 accepts a sign-in without a second factor")
	require.Equal(t, "ana", p.ID)
}

// TestSignInNeverBindsAnAccount: an account becomes a person only by
// accepting an invitation of its verified email (modules/people); signing
// in tells it when one waits, and binds nothing (docs/security.md, finding 2).
func TestSignInNeverBindsAnAccount(t *testing.T) {
	ctx := context.Background()
	f := setup(t)

	_, err := f.admin.Authenticate(ctx, f.bearer(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com"}))
	require.Equal(t, errs.NotRegistered, errs.CodeOf(err))
	require.Equal(t, identity.NotRegisteredMessage, errs.Public(err).Message, "an unverified email proves nothing")

	_, err = f.admin.Authenticate(ctx, f.bearer(t, authtest.Claims{Subject: "sub-ana", Email: "ANA@Example.com", EmailVerified: true}))
	require.Equal(t, errs.NotRegistered, errs.CodeOf(err))
	require.Equal(t, identity.InvitedMessage, errs.Public(err).Message, "told where the invitation waits")
	require.Zero(t, f.count(t, `SELECT count(*) FROM humans WHERE auth_sub IS NOT NULL`), "signing in binds nobody")

	f.accept(t, "ana", "sub-ana")
	p, err := f.admin.Authenticate(ctx, f.bearer(t, authtest.Claims{Subject: "sub-ana"}))
	require.NoError(t, err, "then the account signs in by its subject, with no email")
	require.Equal(t, "ana", p.ID)

	_, err = f.admin.Authenticate(ctx, f.bearer(t, authtest.Claims{Subject: "sub-mallory", Email: "ana@example.com", EmailVerified: true}))
	require.Equal(t, errs.NotRegistered, errs.CodeOf(err))
	require.Equal(t, identity.NotRegisteredMessage, errs.Public(err).Message, "a taken invitation waits for nobody")
}

func TestSignInRefusesStrangersAndDisabledPeople(t *testing.T) {
	ctx := context.Background()
	f := setup(t)

	_, err := f.admin.Authenticate(ctx, f.bearer(t, authtest.Claims{Subject: "sub-x", Email: "x@example.com", EmailVerified: true}))
	require.Equal(t, errs.NotRegistered, errs.CodeOf(err))
	require.Equal(t, identity.NotRegisteredMessage, errs.Public(err).Message)

	f.setVic(t, identity.HumanFields{Disabled: ptr(true)})
	vic := f.bearer(t, authtest.Claims{Subject: "sub-vic", Email: "vic@example.com", EmailVerified: true})
	_, err = f.admin.Authenticate(ctx, vic)
	require.Equal(t, identity.NotRegisteredMessage, errs.Public(err).Message, "a disabled person's invitation waits for nobody")
	require.Nil(t, f.tryAccept(t, "vic", "sub-vic"), "and cannot be accepted")

	f.setVic(t, identity.HumanFields{Disabled: ptr(false)})
	f.accept(t, "vic", "sub-vic")
	p, err := f.admin.Authenticate(ctx, vic)
	require.NoError(t, err)
	require.Equal(t, "vic", p.ID)
	f.setVic(t, identity.HumanFields{Disabled: ptr(true)})
	_, err = f.admin.Authenticate(ctx, f.bearer(t, authtest.Claims{Subject: "sub-vic"}))
	require.Equal(t, errs.AccountDisabled, errs.CodeOf(err), "disabled after binding")
}

func TestChangedEmailIsANewInvitation(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.accept(t, "vic", "sub-vic")

	f.setVic(t, identity.HumanFields{Email: ptr("victoria@example.com"), Unbind: true})
	_, err := f.admin.Authenticate(ctx, f.bearer(t, authtest.Claims{Subject: "sub-vic"}))
	require.Equal(t, errs.NotRegistered, errs.CodeOf(err), "the old account no longer opens the board")

	victoria := f.bearer(t, authtest.Claims{Subject: "sub-victoria", Email: "victoria@example.com", EmailVerified: true})
	_, err = f.admin.Authenticate(ctx, victoria)
	require.Equal(t, identity.InvitedMessage, errs.Public(err).Message)
	f.accept(t, "vic", "sub-victoria")
	p, err := f.admin.Authenticate(ctx, victoria)
	require.NoError(t, err)
	require.Equal(t, "vic", p.ID)
}

// accept binds the account sub at the test issuer to person id, as
// accepting their invitation (modules/people) does.
func (f *fixture) accept(t *testing.T, id, sub string) {
	t.Helper()
	require.NotNil(t, f.tryAccept(t, id, sub), "the invitation of %s", id)
}

// tryAccept accepts as accept does and returns the person bound, or nil.
func (f *fixture) tryAccept(t *testing.T, id, sub string) *identity.Person {
	t.Helper()
	var email string
	require.NoError(t, f.d.NewRaw(`SELECT email FROM humans WHERE id = ?`, id).Scan(context.Background(), &email))
	p, err := f.people.AcceptInvitation(context.Background(), f.d, id, email, authtest.DefaultURL, sub)
	require.NoError(t, err)
	return p
}

func ptr[T any](v T) *T { return &v }

// setVic changes vic's row as modules/people's UpdateHuman does, which a
// core test cannot import.
func (f *fixture) setVic(t *testing.T, hf identity.HumanFields) {
	t.Helper()
	require.NoError(t, f.d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := f.people.SetHumanFields(ctx, tx, "vic", hf)
		return err
	}))
}

// A caller who has not signed in learns nothing of what the issuer said
// about a refused token — its URL, the audience checked, its keys — only
// what to do; the reason stays in the error for the board's log
// (docs/security.md, finding 12).
func TestRefusalsToStrangersSayNothingOfTheIssuer(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	ana := authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true}
	for name, change := range map[string]func(c *authtest.Claims){
		"OtherIssuer": func(c *authtest.Claims) { c.Issuer = "https://evil.test" },
		"Audience":    func(c *authtest.Claims) { c.Audience = []string{"https://board.test/mcp/a/code-web"} },
		"Expired":     func(c *authtest.Claims) { c.ExpiresAt = time.Now().Add(-time.Hour) },
		"UnknownKid":  func(c *authtest.Claims) { c.Kid = "rotated-away" },
	} {
		t.Run(name, func(t *testing.T) {
			c := ana
			change(&c)
			_, err := f.admin.Authenticate(ctx, f.bearer(t, c))
			public := errs.Public(err)
			require.Equal(t, errs.Unauthorized, public.Code)
			for _, secret := range []string{f.iss.URL, audience, "https://board.test", "evil.test", "rotated-away", "kid"} {
				require.NotContains(t, public.Message, secret)
			}
			require.NotEqual(t, public.Message, err.Error(), "the reason is kept for the log")
		})
	}
}
