package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// noEmail is a token of user-1 that carries no email, as many issuers'
// access tokens do.
func noEmail(is *testIssuer, now time.Time) tokenClaims {
	c := is.claims(now)
	c.Email, c.EmailVerified = "", nil
	return c
}

// A token without an email gets the verified one userinfo gives for the
// same subject, asked with the token itself; the answer is cached.
func TestUserinfoSuppliesTheVerifiedEmail(t *testing.T) {
	is, o, clk := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	token := a.sign(t, noEmail(is, t0))
	is.set(func(is *testIssuer) {
		is.userinfo = func(bearer string) (int, any) {
			if bearer != token {
				return http.StatusUnauthorized, map[string]string{"error": "invalid_token"}
			}
			return http.StatusOK, map[string]any{"sub": "user-1", "email": "ann@example.com", "email_verified": "true"}
		}
	})
	id, err := verify(t, o, token)
	require.NoError(t, err)
	require.Equal(t, "ann@example.com", id.Email)
	require.True(t, id.EmailVerified)

	_, err = verify(t, o, token)
	require.NoError(t, err)
	require.Equal(t, int32(1), is.userinfoServed.Load(), "the answer is cached per subject")
	clk.advance(userinfoTTL + time.Second)
	later := a.sign(t, noEmail(is, clk.now()))
	is.set(func(is *testIssuer) {
		is.userinfo = func(string) (int, any) {
			return http.StatusOK, map[string]any{"sub": "user-1", "email": "ann@example.com", "email_verified": true}
		}
	})
	_, err = verify(t, o, later)
	require.NoError(t, err)
	require.Equal(t, int32(2), is.userinfoServed.Load(), "an hour later userinfo is asked again")
}

// A token that carries a verified email never costs a userinfo request.
func TestUserinfoNotAskedWhenTheTokenHasAVerifiedEmail(t *testing.T) {
	is, o, _ := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	id, err := verify(t, o, a.sign(t, is.claims(t0)))
	require.NoError(t, err)
	require.Equal(t, "ann@example.com", id.Email)
	require.Zero(t, is.userinfoServed.Load())
}

// Userinfo's email counts only when it is verified and for the token's
// subject; a failing endpoint leaves the token valid without an email.
func TestUserinfoRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   any
	}{
		{"another subject", http.StatusOK, map[string]any{"sub": "user-2", "email": "eve@example.com", "email_verified": true}},
		{"unverified", http.StatusOK, map[string]any{"sub": "user-1", "email": "ann@example.com", "email_verified": false}},
		{"verified flag missing", http.StatusOK, map[string]any{"sub": "user-1", "email": "ann@example.com"}},
		{"token not good for userinfo", http.StatusUnauthorized, map[string]string{"error": "insufficient_scope"}},
		{"issuer failing", http.StatusBadGateway, map[string]string{"error": "down"}},
		{"not JSON", http.StatusOK, "eyJhbGciOi.signed.jwt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is, o, _ := setup(t)
			a := rsaKey(t, "A")
			is.publish(a)
			is.set(func(is *testIssuer) { is.userinfo = func(string) (int, any) { return c.status, c.body } })
			id, err := verify(t, o, a.sign(t, noEmail(is, t0)))
			require.NoError(t, err, "the token itself is valid")
			require.False(t, id.EmailVerified)
			require.Empty(t, id.Email)
		})
	}
}

// A failure to reach userinfo is not remembered: the next token asks again.
// A definite "no verified email" is remembered for a few minutes only.
func TestUserinfoFailuresAreNotCached(t *testing.T) {
	is, o, clk := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	is.set(func(is *testIssuer) {
		is.userinfo = func(string) (int, any) { return http.StatusServiceUnavailable, nil }
	})
	_, err := verify(t, o, a.sign(t, noEmail(is, t0)))
	require.NoError(t, err)
	is.set(func(is *testIssuer) {
		is.userinfo = func(string) (int, any) {
			return http.StatusOK, map[string]any{"sub": "user-1", "email": "ann@example.com", "email_verified": false}
		}
	})
	id, err := verify(t, o, a.sign(t, noEmail(is, t0)))
	require.NoError(t, err)
	require.False(t, id.EmailVerified)
	require.Equal(t, int32(2), is.userinfoServed.Load(), "the failure was not cached")

	is.set(func(is *testIssuer) {
		is.userinfo = func(string) (int, any) {
			return http.StatusOK, map[string]any{"sub": "user-1", "email": "ann@example.com", "email_verified": true}
		}
	})
	id, err = verify(t, o, a.sign(t, noEmail(is, clk.now())))
	require.NoError(t, err)
	require.False(t, id.EmailVerified, "the miss is cached")
	clk.advance(userinfoMissTTL + time.Second)
	id, err = verify(t, o, a.sign(t, noEmail(is, clk.now())))
	require.NoError(t, err)
	require.True(t, id.EmailVerified, "after the miss expires userinfo is asked again")
}
