package people_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

// byteSource stands in for the board's randomness: it counts up from 0,
// or gives zeros when same, and counts the bytes read.
type byteSource struct {
	next byte
	same bool
	read int
}

func (s *byteSource) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = s.next
		if !s.same {
			s.next++
		}
	}
	s.read += len(p)
	return len(p), nil
}

// newBoardDrawingFrom is newBoard with src as the module's randomness,
// counted from the board's making on.
func newBoardDrawingFrom(t *testing.T, src *byteSource) *board {
	t.Helper()
	b := newBoardOf(t, kerneltest.Options{NoMCP: true}, people.NewWithRand(src))
	src.next, src.read = 0, 0
	return b
}

// An organization's id is its name's slug and 6 hex digits of 3 random
// bytes; an owner's id is their email's local part, with 4 hex digits of 2
// random bytes only once the bare id is taken.
func TestSignUpIDSuffixesAreDrawnRandomBytes(t *testing.T) {
	ctx := context.Background()
	src := &byteSource{}
	f := newBoardDrawingFrom(t, src)
	s, err := f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-zoe", "zoe.r@example.com"))
	require.NoError(t, err)
	require.Equal(t, "zo-s-rocket-shop-000102", s.Org.ID)
	require.Equal(t, "zoe-r", s.Human.ID, "a free id takes no suffix")
	s, err = f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-zoe2", "zoe.r@other.example.com"))
	require.NoError(t, err)
	require.Equal(t, "zo-s-rocket-shop-030405", s.Org.ID)
	require.Equal(t, "zoe-r-0607", s.Human.ID)
	require.Equal(t, 8, src.read, "3 bytes a suffix of 6 digits, 2 a suffix of 4")
}

// Sign-up tries eight suffixes, then refuses id_taken, asking to try again,
// and writes nothing.
func TestSignUpGivesUpAfterEightTakenIDs(t *testing.T) {
	ctx := context.Background()
	src := &byteSource{same: true}
	f := newBoardDrawingFrom(t, src)
	s, err := f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-a", "a@example.com"))
	require.NoError(t, err)
	require.Equal(t, "zo-s-rocket-shop-000000", s.Org.ID)
	orgs, entries := f.Count(`SELECT count(*) FROM orgs`), f.Count(`SELECT count(*) FROM entries`)
	src.read = 0
	_, err = f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-b", "b@example.com"))
	require.Equal(t, errs.IDTaken, errs.CodeOf(err), "%v", err)
	require.Contains(t, err.Error(), "could not find a free id from zo-s-rocket-shop; try again")
	require.Equal(t, 8*3, src.read, "eight tries, 3 bytes each")
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM orgs`))
	require.Equal(t, entries, f.Count(`SELECT count(*) FROM entries`))
}

// A slug keeps digits at both ends of 0-9 and starts with neither a dash
// nor what it stood for.
func TestSignUpSlugsKeepDigitsAndStartClean(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	in := signUpAs("sub-digits", "--9.0__@example.com")
	in.OrgName = "(( 90 Days"
	s, err := f.mod.Service().SignUp(ctx, openSignUp, in)
	require.NoError(t, err)
	require.Regexp(t, `^90-days-[0-9a-f]{6}$`, s.Org.ID)
	require.Equal(t, "9-0", s.Human.ID)
}

// Each of sign-up's names is taken at its limit in characters (not bytes),
// and kept whole.
func TestSignUpTakesEachNameAtItsLimit(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	for _, tc := range []struct {
		field string
		set   func(*people.SignUpInput, string)
		max   int
		col   string
	}{
		{"org_name", func(in *people.SignUpInput, v string) { in.OrgName = v }, 80, `(SELECT name FROM orgs WHERE id = ?)`},
		{"display_name", func(in *people.SignUpInput, v string) { in.DisplayName = v }, 80,
			`(SELECT h.name FROM humans h JOIN orgs o ON o.created_by = h.id AND o.id = h.org_id WHERE o.id = ?)`},
		{"terms_version", func(in *people.SignUpInput, v string) { in.TermsVersion = v }, 64, `(SELECT terms_version FROM orgs WHERE id = ?)`},
	} {
		t.Run(tc.field, func(t *testing.T) {
			in := signUpAs("sub-"+tc.field, tc.field+"@example.com")
			v := strings.Repeat("ë", tc.max)
			tc.set(&in, v)
			s, err := f.mod.Service().SignUp(ctx, openSignUp, in)
			require.NoError(t, err)
			var got string
			require.NoError(t, f.DB.NewRaw(`SELECT `+tc.col, s.Org.ID).Scan(ctx, &got))
			require.Equal(t, v, got)
		})
	}
}

// The resealing replaces a role's settings only if they are still those it
// read: a save in between wins, and the resealing says it did nothing.
func TestResealingLeavesASaveInBetween(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	save := func(turns string) {
		got := b.Admin("val", "PUT", "/roles/r1", `{"name": "R", "client": "runner", "actions": ["task.work"],
			"settings": {"PACT_RUNNER_MAX_TURNS": "`+turns+`"}}`)
		require.Equal(t, http.StatusOK, got.Status, got.Raw)
	}
	read := func() (text, turns string) {
		require.NoError(t, b.DB.NewRaw(`SELECT settings::text, settings->>'PACT_RUNNER_MAX_TURNS' FROM agent_roles
			WHERE org_id = 'default' AND id = 'r1'`).Scan(ctx, &text, &turns))
		return text, turns
	}
	save("5")
	before, _ := read()
	save("6")
	done, err := people.ReplaceRoleSettings(ctx, b.DB, "default", "r1", before, `{"PACT_RUNNER_MAX_TURNS": "7"}`)
	require.NoError(t, err)
	require.False(t, done)
	now, turns := read()
	require.Equal(t, "6", turns, "the save in between stays")
	done, err = people.ReplaceRoleSettings(ctx, b.DB, "default", "r1", now, `{"PACT_RUNNER_MAX_TURNS": "7"}`)
	require.NoError(t, err)
	require.True(t, done)
	_, turns = read()
	require.Equal(t, "7", turns)
}

// pact_whoami's role section is the role an agent was hired from, and null
// (an untyped nil, not an empty object) for an agent that was not.
func TestWhoamiNamesTheRoleAnAgentWasHiredFrom(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	got := b.Admin("val", "PUT", "/roles/helper", `{"name": "Helper", "description": "Helps out.", "instructions": "Be kind.",
		"client": "code", "actions": ["task.work"]}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	got = b.Admin("val", "POST", "/agents/hire", `{"role": "helper", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	b.Agent("ana", kerneltest.AgentInput{ID: "reg-web", Client: "code", Projects: []string{"web"}})
	role := func(agent string) any {
		tx, err := b.DB.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx)
		out, _, err := b.Kernel.Whoami().Build(ctx, tx, kernel.WhoamiCaller{AgentID: agent, OrgID: "default"}, nil)
		require.NoError(t, err)
		return out["role"]
	}
	raw, err := json.Marshal(role(got.Body["agent_id"].(string)))
	require.NoError(t, err)
	require.JSONEq(t, `{"id": "helper", "name": "Helper", "description": "Helps out.", "instructions": "Be kind."}`, string(raw))
	require.True(t, role("reg-web") == nil, "untyped nil")
}
