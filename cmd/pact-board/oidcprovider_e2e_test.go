package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/adminclient"
)

// An OpenID provider nobody here wrote (oidc-provider, core/browsertest)
// signs people in through its form in a headless Chromium, with the
// authorization code flow and PKCE; the board's real auth-oidc plugin
// accepts its RS256 access token and the Admin API answers for the person.
// A sign-in without a second factor is refused while MFA is required (the
// default). This is the ground the console's journeys (issue #15) stand on.
func TestOIDCProviderTokenSignsAPersonIntoTheAdminAPI(t *testing.T) {
	ctx := context.Background()
	landing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><title>Back</title><main><h1>Signed in</h1></main></html>`)
	}))
	t.Cleanup(landing.Close)
	redirect := landing.URL + "/callback"
	ana := browsertest.User{Email: "ana@example.com", Password: "ana's password", AMR: []string{"pwd", "mfa"}}
	bob := browsertest.User{Email: "bob@example.com", Password: "bob's password", AMR: []string{"pwd"}}
	provider := browsertest.StartProvider(t, browsertest.ProviderConfig{ClientID: "pact-console", ClientSecret: "console secret",
		RedirectURIs: []string{redirect}, Audience: "http://127.0.0.1:8787/admin", Users: []browsertest.User{ana, bob}})

	base, dsn := startBoardWithOIDC(t, provider.Issuer, nil)
	d, err := db.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: ana.Email})
	require.NoError(t, err)
	_, err = ident.AddHuman(ctx, "ana", identity.HumanInput{ID: "bob", Name: "Bob", Role: identity.Viewer, Email: bob.Email})
	require.NoError(t, err)

	browser := browsertest.Start(t)
	client := func(token string) *adminclient.ClientWithResponses {
		c, err := adminclient.NewClientWithResponses(base, adminclient.WithRequestEditorFn(
			func(_ context.Context, r *http.Request) error {
				r.Header.Set("Authorization", "Bearer "+token)
				return nil
			}))
		require.NoError(t, err)
		return c
	}

	anas := client(provider.SignIn(t, browser.Page(1280, 800), ana, redirect).AccessToken)
	accepted, err := anas.PeopleAcceptInvitationWithResponse(ctx, "ana")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, accepted.StatusCode(), string(accepted.Body))
	me, err := anas.PeopleGetMeWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, me.StatusCode(), string(me.Body))
	require.Contains(t, string(me.Body), `"ana"`)

	bobs := client(provider.SignIn(t, browser.Page(390, 844), bob, redirect).AccessToken)
	refused, err := bobs.PeopleGetMeWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, refused.StatusCode(), string(refused.Body))
	require.Contains(t, string(refused.Body), "second factor")
}
