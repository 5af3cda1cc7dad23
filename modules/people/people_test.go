package people_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/people"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// board is the people module on kerneltest's World, with the test's
// stand-in for what the board and notify modules provide (standIn); people
// sign in over the Admin API with MFA required.
type board struct {
	*kerneltest.World
	mod   *people.Module
	stand *standIn
}

// newBoard makes, in organization default, ana (owner), val (approver)
// and vic (viewer) with the project web; in organization acme, made as
// sign-up makes one (so the stand-in saw it created), bo (owner) with the
// project rocket. Each has the email <id>@example.com.
func newBoard(t *testing.T) *board {
	t.Helper()
	return newBoardWith(t, kerneltest.Options{NoMCP: true})
}

// newBoardWith is newBoard on a World made with opts.
func newBoardWith(t *testing.T, opts kerneltest.Options) *board {
	t.Helper()
	return newBoardOf(t, opts, people.New())
}

// newBoardOf is newBoardWith on the module mod.
func newBoardOf(t *testing.T, opts kerneltest.Options, mod *people.Module) *board {
	t.Helper()
	b := &board{mod: mod, stand: &standIn{}}
	b.World = kerneltest.New(t, opts, b.mod, b.stand)
	b.Person("", "ana", identity.Owner)
	b.Person("ana", "val", identity.Approver)
	b.Person("ana", "vic", identity.Viewer)
	b.Project("ana", "web", false)
	b.Org("acme", "bo")
	b.Project("bo", "rocket", false)
	return b
}

// TestEveryOperationForEachRole calls every operation as each role and
// expects it allowed from its least role up and refused below, with the
// words of §10.1.
func TestEveryOperationForEachRole(t *testing.T) {
	b := newBoard(t)
	roles := kerneltest.Staff()
	ops := []struct {
		method, path string
		body         func(as string) string
		min          identity.Role
		ok           int
	}{
		{"GET", "/me", nil, identity.Viewer, 200},
		{"PATCH", "/me", func(string) string { return `{"language": "th"}` }, identity.Viewer, 200},
		{"GET", "/humans", nil, identity.Viewer, 200},
		{"POST", "/humans", func(as string) string {
			return fmt.Sprintf(`{"id": "new-%s", "name": "New", "email": "new-%s@example.com"}`, as, as)
		}, identity.Owner, 201},
		{"PATCH", "/humans/vic", func(as string) string { return `{"name": "Vic ` + as + `"}` }, identity.Owner, 200},
		{"GET", "/projects", nil, identity.Viewer, 200},
		{"POST", "/projects", func(as string) string { return `{"id": "p-` + as + `", "name": "P"}` }, identity.Owner, 201},
		{"PATCH", "/projects/web", func(string) string { return `{"frozen": false}` }, identity.Owner, 200},
		{"GET", "/org", nil, identity.Viewer, 200},
		{"PUT", "/org", func(as string) string { return `{"name": "Org ` + as + `"}` }, identity.Owner, 200},
		{"POST", "/kill-switch", func(string) string { return `{"halted": false}` }, identity.Owner, 200},
	}
	for _, o := range ops {
		for _, r := range roles {
			t.Run(o.method+o.path+"/"+string(r.Role), func(t *testing.T) {
				body := ""
				if o.body != nil {
					body = o.body(r.ID)
				}
				got := b.Admin(r.ID, o.method, o.path, body)
				require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
				if r.Role.AtLeast(o.min) {
					require.Equal(t, o.ok, got.Status, got.Raw)
					return
				}
				kerneltest.RequireBelowRole(t, got, r, o.min)
			})
		}
	}
}

func TestSignInOverHTTP(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct {
		name, token string
		status      int
		code, says  string
	}{
		{"NoToken", "", 401, "unauthorized", "Bearer"},
		{"AgentToken", "pact_" + strings.Repeat("x", 43), 401, "unauthorized", "the Admin API takes a person's OAuth token"},
		{"NoSecondFactor", b.Issuer.Token(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true,
			AMR: []string{"pwd"}, Audience: []string{b.Config.AdminAudience}}), 401, "unauthorized", "second factor"},
		{"AgentURLAudience", b.Issuer.Token(t, authtest.Claims{Subject: "sub-ana", Email: "ana@example.com", EmailVerified: true,
			Audience: []string{b.Config.PublicURL + "/mcp/a/code-web"}}), 401, "unauthorized", "the access token was not accepted"},
		{"Stranger", b.Issuer.Token(t, authtest.Claims{Subject: "sub-eve", Email: "eve@example.com", EmailVerified: true,
			Audience: []string{b.Config.AdminAudience}}), 403, "not_registered", identity.NotRegisteredMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.AdminWith(tc.token, "GET", "/me", "")
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, tc.code, got.Body["error"])
			require.Contains(t, got.Body["message"], tc.says)
			require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
		})
	}

	require.Equal(t, 200, b.Admin("ana", "PATCH", "/humans/vic", `{"disabled": true}`).Status)
	got := b.Admin("vic", "GET", "/me", "")
	require.Equal(t, 403, got.Status)
	require.Equal(t, "account_disabled", got.Body["error"])
}
