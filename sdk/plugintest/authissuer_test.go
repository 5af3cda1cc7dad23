package plugintest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

func TestIssuerRoundTrip(t *testing.T) {
	ctx := context.Background()
	id := &authissuer.Identity{
		Subject: "user-1", Issuer: "https://id.example.test", Email: "a@example.test", EmailVerified: true,
		AMR: []string{"pwd", "mfa"}, Audience: []string{"https://board.test/admin"}, Scope: "openid email", ExpiresAt: t0,
	}
	md := &authissuer.Metadata{
		Issuer: "https://id.example.test", AuthorizationServers: []string{"https://id.example.test"},
		ScopesSupported: []string{"openid", "email"}, UserinfoEndpoint: "https://id.example.test/userinfo",
	}
	var got authissuer.VerifyRequest
	is := plugintest.Issuer(t, &fakeIssuer{
		verify: func(_ context.Context, r authissuer.VerifyRequest) (*authissuer.Identity, error) {
			got = r
			return id, nil
		},
		metadata: func(context.Context) (*authissuer.Metadata, error) { return md, nil },
	})
	req := authissuer.VerifyRequest{Token: "eyJhbGciOi...", Audiences: []string{"https://board.test/admin", "https://board.test"}}
	gotID, err := is.Verify(ctx, req)
	require.NoError(t, err)
	require.Equal(t, id, gotID)
	require.Equal(t, req, got)

	gotMD, err := is.Metadata(ctx)
	require.NoError(t, err)
	require.Equal(t, md, gotMD)
}

func TestIssuerErrors(t *testing.T) {
	is := plugintest.Issuer(t, &fakeIssuer{
		verify: func(context.Context, authissuer.VerifyRequest) (*authissuer.Identity, error) {
			return nil, errs.E(errs.Unauthorized, "token expired 5m ago")
		},
		metadata: func(context.Context) (*authissuer.Metadata, error) {
			return nil, errs.E(errs.Unavailable, "discovery document unreachable")
		},
	})
	_, err := is.Verify(context.Background(), authissuer.VerifyRequest{})
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
	require.Equal(t, "token expired 5m ago", errs.Public(err).Message)
	_, err = is.Metadata(context.Background())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
}
