package people_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/modules/people"
)

// TestNobodyJoinsAnOrganizationBySigningIn is finding 2 of docs/security.md:
// an owner of any organization could invite a victim's email and capture
// the victim's first sign-in. Now signing in never binds; the account sees
// its invitations and accepts one.
func TestNobodyJoinsAnOrganizationBySigningIn(t *testing.T) {
	b := newBoard(t)
	victim := b.account(t, "sub-victim", "victim@corp.example", true)

	// bo (acme) invites the victim's address, before anyone else does.
	got := b.Admin("bo", "POST", "/humans", `{"id": "squat", "name": "Victim", "role": "owner", "email": "victim@corp.example"}`)
	require.Equal(t, 201, got.Status, got.Raw)

	// The victim signs in: refused, told of the invitation, bound to nothing.
	got = b.AdminWith(victim, "GET", "/me", "")
	require.Equal(t, 403, got.Status, got.Raw)
	require.Equal(t, "not_registered", got.Body["error"])
	require.Contains(t, got.Body["message"], "GET /admin/api/invitations")
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM humans WHERE auth_sub = 'sub-victim'`), "no sign-in binds")

	// Their own organization invites them too: the address taken in acme is
	// no concern of default's (no 409), and both invitations show.
	got = b.Admin("ana", "POST", "/humans", `{"id": "vera", "name": "Vera", "role": "approver", "email": "Victim@Corp.example"}`)
	require.Equal(t, 201, got.Status, got.Raw)
	got = b.AdminWith(victim, "GET", "/invitations", "")
	require.Equal(t, 200, got.Status, got.Raw)
	var seen []string
	for _, inv := range got.Body["invitations"].([]any) {
		i := inv.(map[string]any)
		seen = append(seen, fmt.Sprintf("%s@%s", i["human_id"], i["org"].(map[string]any)["name"]))
	}
	require.Equal(t, []string{"squat@Acme", "vera@Default organization"}, seen, "oldest first, with the organization's name")

	// The victim accepts their own organization's.
	got = b.AdminWith(victim, "POST", "/invitations/vera/accept", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "default", got.Body["org"].(map[string]any)["id"])
	got = b.AdminWith(victim, "GET", "/me", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "vera", got.Body["id"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.org_id = 'default' AND e.action = 'admin.human.bind' AND e.actor = 'human:vera'
		AND p.content->>'via' = 'invitation'`))

	// One account, one person: the squatter's invitation cannot be taken too.
	got = b.AdminWith(victim, "POST", "/invitations/squat/accept", "")
	require.Equal(t, 409, got.Status, got.Raw)
	require.Equal(t, "already_registered", got.Body["error"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM humans WHERE id = 'squat' AND auth_sub IS NULL`))
}

// TestAcceptNamesNothingButTheCallersInvitations: an account accepts only
// an invitation of its own verified email, and every other id (missing,
// another address's invitation, a person already bound, a disabled one)
// gets one answer, word for word but for the id.
func TestAcceptNamesNothingButTheCallersInvitations(t *testing.T) {
	b := newBoard(t)
	b.Invited("ana", "olga", identity.Viewer)
	b.Invited("ana", "dora", identity.Viewer)
	got := b.Admin("ana", "PATCH", "/humans/dora", `{"disabled": true}`)
	require.Equal(t, 200, got.Status, got.Raw)
	stranger := b.account(t, "sub-stranger", "stranger@example.com", true)
	rows := b.Count(`SELECT count(*) FROM humans WHERE auth_sub IS NOT NULL`)
	entries := b.Count(`SELECT count(*) FROM entries`)
	for _, id := range []string{"nobody", "olga", "ana", "bo", "dora"} {
		got := b.AdminWith(stranger, "POST", "/invitations/"+id+"/accept", "")
		require.Equal(t, 404, got.Status, got.Raw)
		require.Equal(t, fmt.Sprintf(people.NoInvitationMessage, id), got.Body["message"], id)
	}
	require.Equal(t, rows, b.Count(`SELECT count(*) FROM humans WHERE auth_sub IS NOT NULL`), "nothing bound")
	require.Equal(t, entries, b.Count(`SELECT count(*) FROM entries`), "nothing logged in anyone's organization")

	// A disabled invitation is not listed; olga's own account takes hers.
	got = b.AdminWith(b.account(t, "sub-dora", "dora@example.com", true), "GET", "/invitations", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Empty(t, got.Body["invitations"])
	got = b.AdminWith(b.account(t, "sub-olga", "OLGA@example.com", true), "POST", "/invitations/olga/accept", "")
	require.Equal(t, 200, got.Status, got.Raw)

	// Without a token nothing is said; without a verified email nothing matches.
	got = b.AdminWith("", "GET", "/invitations", "")
	require.Equal(t, 401, got.Status, got.Raw)
	got = b.AdminWith(b.account(t, "sub-u", "olga@example.com", false), "GET", "/invitations", "")
	require.Equal(t, 400, got.Status, got.Raw)
	require.Contains(t, got.Body["message"], people.NoVerifiedEmail)
}

// TestEmailsAreUniquePerOrganization: within one organization an address
// is one person's (409); another organization's people never show.
func TestEmailsAreUniquePerOrganization(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("ana", "POST", "/humans", `{"id": "val2", "name": "Val", "email": "VAL@example.com"}`)
	require.Equal(t, 409, got.Status, got.Raw)
	require.Equal(t, "id_taken", got.Body["error"])
	got = b.Admin("ana", "PATCH", "/humans/vic", `{"email": "val@example.com"}`)
	require.Equal(t, 409, got.Status, got.Raw)
	// bo@example.com is acme's owner: default may invite it, and change vic to it.
	got = b.Admin("ana", "POST", "/humans", `{"id": "bo2", "name": "Bo", "email": "bo@example.com"}`)
	require.Equal(t, 201, got.Status, got.Raw)
	got = b.Admin("bo", "PATCH", "/humans/bo", `{"email": "ana@example.com"}`)
	require.Equal(t, 200, got.Status, got.Raw)
}
