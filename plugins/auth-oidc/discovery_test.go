package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMetadata(t *testing.T) {
	is, o, _ := setup(t)
	m, err := o.Metadata(t.Context())
	require.NoError(t, err)
	require.Equal(t, &authissuer.Metadata{
		Issuer: is.srv.URL, AuthorizationServers: []string{is.srv.URL},
		ScopesSupported: []string{"pact"}, UserinfoEndpoint: is.srv.URL + "/userinfo",
	}, m)
}

func TestDiscoveryFallsBackToOpenIDConfiguration(t *testing.T) {
	is, o, _ := setup(t)
	is.set(func(is *testIssuer) { is.noRFC8414 = true })
	a := edKey(t, "A")
	is.publish(a)
	_, err := verify(t, o, a.sign(t, is.claims(t0)))
	require.NoError(t, err)
}

func TestDiscoveryMustNameTheIssuer(t *testing.T) {
	is, o, _ := setup(t)
	is.set(func(is *testIssuer) { is.wrongIss = true })
	_, err := o.Metadata(t.Context())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.ErrorContains(t, err, `names issuer "https://evil.example"`)
}

func TestIssuerOutage(t *testing.T) {
	is, o, clk := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	is.set(func(is *testIssuer) { is.down = true })
	_, err := verify(t, o, a.sign(t, is.claims(clk.now())))
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "a valid token is not called bad while keys cannot be fetched")
	require.ErrorContains(t, err, "503")

	is.set(func(is *testIssuer) { is.down = false })
	clk.advance(31 * time.Second)
	_, err = verify(t, o, a.sign(t, is.claims(clk.now())))
	require.NoError(t, err, "back without a restart")

	// Known keys outlive an outage: a refresh that fails keeps them.
	is.set(func(is *testIssuer) { is.down = true })
	clk.advance(2 * time.Hour)
	_, err = verify(t, o, a.sign(t, is.claims(clk.now())))
	require.NoError(t, err)
}

func TestDiscoveryURLs(t *testing.T) {
	o, err := New(Options{Issuer: "https://login.example.com/realms/pact/"})
	require.NoError(t, err)
	require.Equal(t, "https://login.example.com/.well-known/oauth-authorization-server/realms/pact", o.discoveryA)
	require.Equal(t, "https://login.example.com/realms/pact/.well-known/openid-configuration", o.discoveryB)
	require.Equal(t, "https://login.example.com/realms/pact/", o.issuer, "iss is compared exactly as configured")
}

func TestNewChecksTheIssuer(t *testing.T) {
	for _, iss := range []string{"", "login.example.com", "http://login.example.com", "ftp://login.example.com", "https://login.example.com/?x=1", "https://u:p@login.example.com"} {
		_, err := New(Options{Issuer: iss})
		require.Error(t, err, iss)
	}
	_, err := New(Options{Issuer: ""})
	require.ErrorContains(t, err, "PACT_OIDC_ISSUER is not set")
	for _, iss := range []string{"https://login.example.com", "http://127.0.0.1:8080", "http://localhost:9000/realm"} {
		_, err := New(Options{Issuer: iss})
		require.NoError(t, err, iss)
	}
}

func TestJWKSMustBeHTTPS(t *testing.T) {
	o, err := New(Options{Issuer: "https://login.example.com"})
	require.NoError(t, err)
	require.Error(t, o.checkFetchURL("http://login.example.com/jwks"))
	require.Error(t, o.checkFetchURL("http://127.0.0.1/jwks"), "loopback http only when the issuer itself is")
	require.NoError(t, o.checkFetchURL("https://keys.example.com/jwks"))
}
