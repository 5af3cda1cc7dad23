package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

// The plugin as the host sees it: every call over real gRPC, in-process.

func TestPluginVerifiesAcrossRotation(t *testing.T) {
	is, o, clk := setup(t)
	p := plugintest.Issuer(t, o)
	a, b := rsaKey(t, "A"), edKey(t, "B")
	is.publish(a)
	req := func(tok string) authissuer.VerifyRequest {
		return authissuer.VerifyRequest{Token: tok, Audiences: []string{aud}}
	}

	id, err := p.Verify(t.Context(), req(a.sign(t, is.claims(clk.now()))))
	require.NoError(t, err)
	require.Equal(t, "user-1", id.Subject)
	require.Equal(t, []string{"pwd", "mfa"}, id.AMR)
	require.True(t, id.ExpiresAt.Equal(t0.Add(10*time.Minute)))

	is.publish(b)
	clk.advance(31 * time.Second)
	_, err = p.Verify(t.Context(), req(b.sign(t, is.claims(clk.now()))))
	require.NoError(t, err)
	_, err = p.Verify(t.Context(), req(a.sign(t, is.claims(clk.now()))))
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
	e, _ := errs.As(err)
	require.Equal(t, `token is signed by an unknown key (kid "A")`, e.Message)

	_, err = p.Verify(t.Context(), req(unsigned(is.claims(clk.now()))))
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
	require.ErrorContains(t, err, "alg none")

	m, err := p.Metadata(t.Context())
	require.NoError(t, err)
	require.Equal(t, []string{is.srv.URL}, m.AuthorizationServers)
	require.Equal(t, []string{"pact"}, m.ScopesSupported)
	require.Equal(t, is.srv.URL+"/userinfo", m.UserinfoEndpoint)
}
