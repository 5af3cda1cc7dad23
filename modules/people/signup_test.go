package people_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/people"
)

const signupBody = `{"org_name": "Eve's Lab", "display_name": "Eve", "accept_terms": true, "terms_version": "2026-01"}`

// account is an access token of an account no person is bound to yet.
func (b *board) account(t *testing.T, sub, email string, verified bool) string {
	return b.Issuer.Token(t, authtest.Claims{Subject: sub, Email: email, EmailVerified: verified,
		Audience: []string{b.Config.AdminAudience}})
}

func TestSignUpIsClosedByDefault(t *testing.T) {
	b := newBoard(t)
	got := b.AdminWith(b.account(t, "sub-eve", "eve@example.com", true), "POST", "/signup", signupBody)
	require.Equal(t, http.StatusForbidden, got.Status, got.Raw)
	require.Equal(t, map[string]any{"error": "signup_closed", "message": people.SignupClosedMessage}, got.Body)
	require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM humans WHERE email = 'eve@example.com'`))
}

// signedUp counts the organizations the test's sign-ups made: newBoard's
// acme is made as sign-up makes one (it has a creator), so it is left out.
const signedUp = `SELECT count(*) FROM orgs WHERE created_by IS NOT NULL AND id <> 'acme'`

func TestSignUpOverHTTP(t *testing.T) {
	b := newBoard(t)
	// The module reads the board's configuration on each call.
	b.Config.SignupEnabled = true
	eve := b.account(t, "sub-eve", "eve@example.com", true)

	got := b.AdminWith(eve, "GET", "/me", "")
	require.Equal(t, http.StatusForbidden, got.Status)
	require.Equal(t, "not_registered", got.Body["error"], "not a person before signing up")

	got = b.AdminWith(eve, "POST", "/signup", signupBody)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	org := got.Body["org"].(map[string]any)
	require.Regexp(t, `^eve-s-lab-[0-9a-f]{6}$`, org["id"])
	require.Equal(t, map[string]any{"id": org["id"], "name": "Eve's Lab", "halted": false}, org)
	h := got.Body["human"].(map[string]any)
	require.Equal(t, "eve", h["id"])
	require.Equal(t, "owner", h["role"])
	require.Equal(t, "eve@example.com", h["email"])

	me := b.AdminWith(eve, "GET", "/me", "")
	require.Equal(t, 200, me.Status, me.Raw)
	require.Equal(t, org["id"], me.Body["org"].(map[string]any)["id"], "bound to the token's issuer and subject")
	// acme is newBoard's, made as sign-up makes one.
	require.Equal(t, []string{"acme", org["id"].(string)}, b.stand.orgsCreated(), "the modules seeded it (the board: its approval rules)")
	roles := b.AdminWith(eve, "GET", "/roles", "")
	require.Len(t, roles.Body["roles"], 8, "seeded from role_templates")
	humans := b.AdminWith(eve, "GET", "/humans", "")
	require.Len(t, humans.Body["humans"], 1, "sees nothing of the other organizations")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries WHERE org_id = ? AND action = 'org.created'
		AND id = (SELECT min(id) FROM entries WHERE org_id = ?)`, org["id"], org["id"]))

	got = b.AdminWith(eve, "POST", "/signup", signupBody)
	require.Equal(t, http.StatusConflict, got.Status, got.Raw)
	require.Equal(t, "already_registered", got.Body["error"])
	require.Equal(t, 200, b.Admin("ana", "GET", "/me", "").Status)
	got = b.Admin("ana", "POST", "/signup", signupBody)
	require.Equal(t, http.StatusConflict, got.Status, got.Raw)
	require.Equal(t, "already_registered", got.Body["error"])

	// An invited account that signs up makes its own organization; the
	// invitation stays pending (docs/security.md, finding 2).
	require.Equal(t, 201, b.Admin("ana", "POST", "/humans", `{"id": "zoe", "name": "Zoe", "email": "zoe@example.com"}`).Status)
	got = b.AdminWith(b.account(t, "sub-zoe-account", "Zoe@Example.com", true), "POST", "/signup", signupBody)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, "owner", got.Body["human"].(map[string]any)["role"])
	require.NotEqual(t, "default", got.Body["org"].(map[string]any)["id"])
	require.Equal(t, 2, b.Count(signedUp))
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM humans WHERE id = 'zoe' AND auth_sub IS NULL`))

	// A disabled person stays disabled.
	require.Equal(t, 200, b.Admin("ana", "PATCH", "/humans/vic", `{"disabled": true}`).Status)
	got = b.Admin("vic", "POST", "/signup", signupBody)
	require.Equal(t, http.StatusForbidden, got.Status, got.Raw)
	require.Equal(t, "account_disabled", got.Body["error"])

	// The circuit breaker: three organizations this hour are the most (eve's,
	// zoe's and newBoard's acme, made as sign-up makes one).
	b.Config.SignupMaxPerHour = 3
	got = b.AdminWith(b.account(t, "sub-fay", "fay@example.com", true), "POST", "/signup", signupBody)
	require.Equal(t, http.StatusTooManyRequests, got.Status, got.Raw)
	require.Equal(t, map[string]any{"error": "signup_busy", "message": people.SignupBusyMessage}, got.Body)
}

func TestSignUpBadInput(t *testing.T) {
	b := newBoard(t)
	b.Config.SignupEnabled = true
	kim := b.account(t, "sub-kim", "kim@example.com", true)
	for _, tc := range []struct {
		name, token, body string
		status            int
		code, says        string
	}{
		{"NoToken", "", signupBody, 401, "unauthorized", "Bearer"},
		{"AgentToken", "pact_" + strings.Repeat("x", 43), signupBody, 401, "unauthorized", "not an agent token"},
		{"NoSecondFactor", b.Issuer.Token(t, authtest.Claims{Subject: "sub-kim", Email: "kim@example.com", EmailVerified: true,
			AMR: []string{"pwd"}, Audience: []string{b.Config.AdminAudience}}), signupBody, 401, "unauthorized", "second factor"},
		{"UnverifiedEmail", b.account(t, "sub-kim", "kim@example.com", false), signupBody, 400, "invalid_request", people.NoVerifiedEmail},
		{"TermsNotAccepted", kim, `{"org_name": "K", "display_name": "Kim", "accept_terms": false, "terms_version": "1"}`,
			400, "invalid_request", people.AcceptTermsMessage},
		{"BlankOrgName", kim, `{"org_name": " ", "display_name": "Kim", "accept_terms": true, "terms_version": "1"}`,
			400, "invalid_request", "org_name"},
		{"MissingTerms", kim, `{"org_name": "K", "display_name": "Kim", "accept_terms": true}`, 422, "invalid_request", ""},
		{"UnknownField", kim, `{"org_name": "K", "display_name": "Kim", "accept_terms": true, "terms_version": "1", "role": "owner"}`,
			422, "invalid_request", ""},
		{"NoTokenBadBody", "", `{"org_name": 1}`, 401, "unauthorized", "Bearer"},
		{"Malformed", kim, `{"org_name": `, 400, "invalid_request", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.AdminWith(tc.token, "POST", "/signup", tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, tc.code, got.Body["error"], got.Raw)
			require.Contains(t, got.Body["message"], tc.says)
			require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
			if tc.status == 401 {
				require.Contains(t, got.Header.Get("WWW-Authenticate"), "Bearer")
			}
		})
	}
	require.Equal(t, 0, b.Count(signedUp), "nothing half-written")
}

func TestConcurrentSignUpsOverHTTPMakeOneOrganization(t *testing.T) {
	b := newBoard(t)
	b.Config.SignupEnabled = true
	token := b.account(t, "sub-twin", "twin@example.com", true)
	const n = 6
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.AdminWith(token, "POST", "/signup", signupBody).Status
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			created++
			continue
		}
		require.Equal(t, http.StatusConflict, s)
	}
	require.Equal(t, 1, created, "%v", statuses)
	require.Equal(t, 1, b.Count(signedUp))
}

// TestSignupStatusSaysWhatSignupWouldDo: any signed-in account, person or
// not, reads whether sign-up is on, and the answer follows the setting as
// sign-up itself does; without a token, nothing is said.
func TestSignupStatusSaysWhatSignupWouldDo(t *testing.T) {
	b := newBoard(t)
	eve := b.account(t, "sub-eve", "eve@example.com", true)
	for _, on := range []bool{false, true} {
		b.Config.SignupEnabled = on
		for who, got := range map[string]kerneltest.Reply{"an account": b.AdminWith(eve, "GET", "/signup", ""),
			"a person": b.Admin("ana", "GET", "/signup", "")} {
			require.Equal(t, http.StatusOK, got.Status, "%s, sign-up %v: %s", who, on, got.Raw)
			require.Equal(t, map[string]any{"open": on}, got.Body, who)
		}
		posted := b.AdminWith(eve, "POST", "/signup", signupBody)
		if on {
			require.Equal(t, http.StatusCreated, posted.Status, "open said, sign-up takes it: %s", posted.Raw)
		} else {
			require.Equal(t, "signup_closed", posted.Body["error"], "closed said, sign-up refuses it: %s", posted.Raw)
		}
	}
	require.Equal(t, http.StatusUnauthorized, b.AdminWith("", "GET", "/signup", "").Status)
}
