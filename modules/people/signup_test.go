package people_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/modules/people"
)

const signupBody = `{"org_name": "Eve's Lab", "display_name": "Eve", "accept_terms": true, "terms_version": "2026-01"}`

// account is an access token of an account no person is bound to yet.
func (b *board) account(t *testing.T, sub, email string, verified bool) string {
	return b.iss.Token(t, authtest.Claims{Subject: sub, Email: email, EmailVerified: verified,
		Audience: []string{b.cfg.AdminAudience}})
}

func TestSignUpIsClosedByDefault(t *testing.T) {
	b := newBoard(t)
	got := b.callWith(t, b.account(t, "sub-eve", "eve@example.com", true), "POST", "/signup", signupBody)
	require.Equal(t, http.StatusForbidden, got.status, got.raw)
	require.Equal(t, map[string]any{"error": "signup_closed", "message": people.SignupClosedMessage}, got.body)
	require.Equal(t, "no-store", got.header.Get("Cache-Control"))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM humans WHERE email = 'eve@example.com'`))
}

func TestSignUpOverHTTP(t *testing.T) {
	b := newBoard(t)
	// The module reads the board's configuration on each call.
	b.cfg.SignupEnabled = true
	eve := b.account(t, "sub-eve", "eve@example.com", true)

	got := b.callWith(t, eve, "GET", "/me", "")
	require.Equal(t, http.StatusForbidden, got.status)
	require.Equal(t, "not_registered", got.body["error"], "not a person before signing up")

	got = b.callWith(t, eve, "POST", "/signup", signupBody)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	require.Equal(t, false, got.body["invited"])
	org := got.body["org"].(map[string]any)
	require.Regexp(t, `^eve-s-lab-[0-9a-f]{6}$`, org["id"])
	require.Equal(t, map[string]any{"id": org["id"], "name": "Eve's Lab", "halted": false}, org)
	h := got.body["human"].(map[string]any)
	require.Equal(t, "eve", h["id"])
	require.Equal(t, "owner", h["role"])
	require.Equal(t, "eve@example.com", h["email"])

	me := b.callWith(t, eve, "GET", "/me", "")
	require.Equal(t, 200, me.status, me.raw)
	require.Equal(t, org["id"], me.body["org"].(map[string]any)["id"], "bound to the token's issuer and subject")
	require.Equal(t, []string{org["id"].(string)}, b.stand.orgsCreated(), "the modules seeded it (the board: its approval rules)")
	roles := b.callWith(t, eve, "GET", "/roles", "")
	require.Len(t, roles.body["roles"], 8, "seeded from role_templates")
	humans := b.callWith(t, eve, "GET", "/humans", "")
	require.Len(t, humans.body["humans"], 1, "sees nothing of the other organizations")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM entries WHERE org_id = ? AND action = 'org.created'
		AND id = (SELECT min(id) FROM entries WHERE org_id = ?)`, org["id"], org["id"]))

	got = b.callWith(t, eve, "POST", "/signup", signupBody)
	require.Equal(t, http.StatusConflict, got.status, got.raw)
	require.Equal(t, "already_registered", got.body["error"])
	require.Equal(t, 200, b.call(t, "ana", "GET", "/me", "").status, "ana's first sign-in binds her account")
	got = b.call(t, "ana", "POST", "/signup", signupBody)
	require.Equal(t, http.StatusConflict, got.status, got.raw)
	require.Equal(t, "already_registered", got.body["error"])

	// An invited person joins the organization that invited them.
	require.Equal(t, 201, b.call(t, "ana", "POST", "/humans", `{"id": "zoe", "name": "Zoe", "email": "zoe@example.com"}`).status)
	got = b.callWith(t, b.account(t, "sub-zoe-account", "Zoe@Example.com", true), "POST", "/signup", signupBody)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	require.Equal(t, true, got.body["invited"])
	require.Equal(t, "zoe", got.body["human"].(map[string]any)["id"])
	require.Equal(t, "viewer", got.body["human"].(map[string]any)["role"])
	require.Equal(t, "default", got.body["org"].(map[string]any)["id"])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM orgs WHERE created_by IS NOT NULL`), "no organization for the invitee")

	// A disabled person stays disabled.
	require.Equal(t, 200, b.call(t, "ana", "PATCH", "/humans/vic", `{"disabled": true}`).status)
	got = b.call(t, "vic", "POST", "/signup", signupBody)
	require.Equal(t, http.StatusForbidden, got.status, got.raw)
	require.Equal(t, "account_disabled", got.body["error"])

	// The circuit breaker: one organization this hour is the most.
	b.cfg.SignupMaxPerHour = 1
	got = b.callWith(t, b.account(t, "sub-fay", "fay@example.com", true), "POST", "/signup", signupBody)
	require.Equal(t, http.StatusTooManyRequests, got.status, got.raw)
	require.Equal(t, map[string]any{"error": "signup_busy", "message": people.SignupBusyMessage}, got.body)
}

func TestSignUpBadInput(t *testing.T) {
	b := newBoard(t)
	b.cfg.SignupEnabled = true
	kim := b.account(t, "sub-kim", "kim@example.com", true)
	for _, tc := range []struct {
		name, token, body string
		status            int
		code, says        string
	}{
		{"NoToken", "", signupBody, 401, "unauthorized", "Bearer"},
		{"AgentToken", "pact_" + strings.Repeat("x", 43), signupBody, 401, "unauthorized", "not an agent token"},
		{"NoSecondFactor", b.iss.Token(t, authtest.Claims{Subject: "sub-kim", Email: "kim@example.com", EmailVerified: true,
			AMR: []string{"pwd"}, Audience: []string{b.cfg.AdminAudience}}), signupBody, 401, "unauthorized", "second factor"},
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
			got := b.callWith(t, tc.token, "POST", "/signup", tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, tc.code, got.body["error"], got.raw)
			require.Contains(t, got.body["message"], tc.says)
			require.Equal(t, "no-store", got.header.Get("Cache-Control"))
			if tc.status == 401 {
				require.Contains(t, got.header.Get("WWW-Authenticate"), "Bearer")
			}
		})
	}
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM orgs WHERE created_by IS NOT NULL`), "nothing half-written")
}

func TestConcurrentSignUpsOverHTTPMakeOneOrganization(t *testing.T) {
	b := newBoard(t)
	b.cfg.SignupEnabled = true
	token := b.account(t, "sub-twin", "twin@example.com", true)
	const n = 6
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.callWith(t, token, "POST", "/signup", signupBody).status
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
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM orgs WHERE created_by IS NOT NULL`))
}
