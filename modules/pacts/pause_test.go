package pacts_test

import (
	"context"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// Who may pause or wake a seat's job with set_helper_paused (SEC-016,
// PACT-020, docs/security.md issue 29 finding 2). Every rule is tried both
// ways, pausing an awake seat and waking a paused one, and each refusal
// must leave the seat and the pact's feed as they were, with only its log
// entry added.

// pausedBy is who holds seat key of pact paused ("" when it is awake).
func (f *fixture) pausedBy(t *testing.T, pact, key string) string {
	t.Helper()
	var by *string
	require.NoError(t, f.DB.NewRaw(`SELECT CASE WHEN paused_at IS NULL THEN '' ELSE coalesce(paused_by, 'nobody') END
		FROM pact_seats WHERE pact_id = ? AND key = ?`, pact, key).Scan(context.Background(), &by))
	return *by
}

// setPaused pauses or wakes seat key of pact as by: "agent:<id>" through
// set_helper_paused, "human:<id>" through the Admin API; both must succeed.
func (f *fixture) setPaused(t *testing.T, by, pact, key string, paused bool) {
	t.Helper()
	if person, isPerson := strings.CutPrefix(by, "human:"); isPerson {
		verb := "wake"
		if paused {
			verb = "pause"
		}
		ok(t, f.adm(person, http.MethodPost, "/pacts/"+pact+"/seats/"+key+"/"+verb, nil))
		return
	}
	_, err := f.as(strings.TrimPrefix(by, "agent:"), pacts.ToolSetPaused, map[string]any{"pact_id": pact, "key": key, "paused": paused})
	require.NoError(t, err, "%s sets %s paused=%v", by, key, paused)
}

// refusedPause has agent set seat key of pact paused (or awake) and
// requires the refusal code with a message containing hint, the seat's
// pause holder still want, the pact's feed unchanged and one refused
// entry more on the log.
func (f *fixture) refusedPause(t *testing.T, agent, pact, key string, paused bool, code errs.Code, hint, want string) {
	t.Helper()
	feed := f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ?`, pact)
	logged := `SELECT count(*) FROM entries WHERE agent_id = ? AND action = ? AND outcome = ?`
	before := f.Count(logged, agent, pacts.ToolSetPaused, string(code))
	_, err := f.as(agent, pacts.ToolSetPaused, map[string]any{"pact_id": pact, "key": key, "paused": paused})
	require.Equal(t, code, errs.CodeOf(err), "%s sets %s paused=%v: %v", agent, key, paused, err)
	e, _ := errs.As(err)
	require.Contains(t, e.Message, hint)
	require.Equal(t, want, f.pausedBy(t, pact, key), "a refused call leaves the seat as it was")
	require.Equal(t, feed, f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ?`, pact), "a refused call adds nothing to the feed")
	require.Equal(t, before+1, f.Count(logged, agent, pacts.ToolSetPaused, string(code)), "the refusal is on the log")
}

// refusedBoth has agent pause seat key of pact while it is awake, then
// wake it while by holds it paused, and requires both refused with code
// and hint; by wakes it again at the end.
func (f *fixture) refusedBoth(t *testing.T, agent, pact, key, by string, code errs.Code, hint string) {
	t.Helper()
	require.Empty(t, f.pausedBy(t, pact, key))
	f.refusedPause(t, agent, pact, key, true, code, hint, "")
	f.setPaused(t, by, pact, key, true)
	f.refusedPause(t, agent, pact, key, false, code, hint, by)
	f.setPaused(t, by, pact, key, false)
}

// addAgent registers agent (in web, of person owner) for the test.
func (f *fixture) addAgent(agent, owner string) {
	f.Agent("ana", kerneltest.AgentInput{ID: agent, Client: "code", Projects: []string{"web"}, Owner: owner})
	f.roots[agent] = f.Root(agent)
}

// seated has wanda invite agent (with prefix) to pact and agent join.
func (f *fixture) seated(t *testing.T, pact, agent, prefix string) {
	t.Helper()
	_, err := f.as("wanda", pacts.ToolInvite, map[string]any{"pact_id": pact, "key": "@" + agent, "prefix": prefix})
	require.NoError(t, err)
	_, err = f.as(agent, pacts.ToolJoin, map[string]any{"pact_id": pact})
	require.NoError(t, err)
}

// An agent pauses and wakes only other agents' seats: never its own, and
// never a person's.
func TestAnAgentPausesOnlyOtherAgentsSeats(t *testing.T) {
	f := setup(t)
	id := f.pact(t)

	f.refusedBoth(t, "wanda", id, "@wanda", "agent:bram", errs.Forbidden, "your own seat")

	ok(t, f.adm("ana", http.MethodPost, "/pacts/"+id+"/seats", map[string]any{"human_id": "vic", "prefix": "V"}))
	ok(t, f.adm("vic", http.MethodPost, "/pacts/"+id+"/join", nil))
	f.refusedPause(t, "wanda", id, "@vic", true, errs.Forbidden, "a person's seat", "")
	f.refusedPause(t, "wanda", id, "@vic", false, errs.Forbidden, "a person's seat", "")

	// Another agent's seat: both ways work.
	f.setPaused(t, "agent:wanda", id, "@bram", true)
	require.Equal(t, "agent:wanda", f.pausedBy(t, id, "@bram"))
	f.setPaused(t, "agent:wanda", id, "@bram", false)
	require.Empty(t, f.pausedBy(t, id, "@bram"))
	f.VerifyLog()
}

// An agent pauses and wakes only from a seat it holds in the pact: none,
// one still waiting for it, a removed one and a paused one are refused.
func TestAnAgentPausesOnlyFromItsJoinedSeat(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	f.addAgent("nico", "ana")

	f.refusedBoth(t, "nico", id, "@bram", "agent:wanda", errs.Forbidden, "no seat in pact")

	_, err := f.as("wanda", pacts.ToolInvite, map[string]any{"pact_id": id, "key": "@nico", "prefix": "N"})
	require.NoError(t, err)
	f.refusedBoth(t, "nico", id, "@bram", "agent:wanda", errs.Forbidden, "join_pact")

	_, err = f.as("nico", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)
	f.setPaused(t, "agent:wanda", id, "@nico", true)
	f.refusedBoth(t, "nico", id, "@bram", "agent:wanda", errs.AgentPaused, "paused by agent:wanda")
	f.setPaused(t, "agent:wanda", id, "@nico", false)

	ok(t, f.adm("ana", http.MethodPost, "/pacts/"+id+"/seats/@nico/remove", nil))
	f.refusedBoth(t, "nico", id, "@bram", "agent:wanda", errs.Forbidden, "was removed")
	f.VerifyLog()
}

// An agent pauses and wakes only in open pacts.
func TestAnAgentPausesOnlyInOpenPacts(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	f.seated(t, id, "vera", "V")
	f.setPaused(t, "agent:wanda", id, "@bram", true)
	ok(t, f.adm("ana", http.MethodPost, "/pacts/"+id+"/close", nil))

	f.refusedPause(t, "wanda", id, "@vera", true, errs.Forbidden, "is closed", "")
	f.refusedPause(t, "wanda", id, "@bram", false, errs.Forbidden, "is closed", "agent:wanda")
	f.VerifyLog()
}

// An agent never wakes a pause a person set, nor pauses over it so that
// it becomes its own; a person wakes either kind, and pausing over an
// agent's pause makes it the person's.
func TestAnAgentNeverUndoesAPersonsPause(t *testing.T) {
	f := setup(t)
	id := f.pact(t)

	f.setPaused(t, "human:ana", id, "@bram", true)
	f.refusedPause(t, "wanda", id, "@bram", false, errs.Forbidden, "paused by a person (human:ana)", "human:ana")
	f.refusedPause(t, "wanda", id, "@bram", true, errs.Forbidden, "paused by a person (human:ana)", "human:ana")
	_, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Still paused."})
	require.Equal(t, errs.AgentPaused, errs.CodeOf(err))
	f.setPaused(t, "human:ana", id, "@bram", false)

	// A person undoes an agent's pause, and takes one over.
	f.setPaused(t, "agent:wanda", id, "@bram", true)
	f.setPaused(t, "human:ana", id, "@bram", false)
	f.setPaused(t, "agent:wanda", id, "@bram", true)
	f.setPaused(t, "human:ana", id, "@bram", true)
	require.Equal(t, "human:ana", f.pausedBy(t, id, "@bram"))
	f.refusedPause(t, "wanda", id, "@bram", false, errs.Forbidden, "paused by a person", "human:ana")
	f.VerifyLog()
}

// Only an agent whose person is an owner or approver pauses or wakes a
// seat, both ways (PACT-020). The population: every role the humans
// table allows (migration 001's CHECK), each with an agent seated in the
// pact.
func TestOnlyAnOwnersOrApproversAgentPausesOrWakes(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	var def string
	require.NoError(t, f.DB.NewRaw(`SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'humans'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%role%'`).Scan(context.Background(), &def))
	var roles []identity.Role
	for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(def, -1) {
		roles = append(roles, identity.Role(m[1]))
	}
	require.ElementsMatch(t, []identity.Role{identity.Owner, identity.Approver, identity.Viewer}, roles, def)

	prefixes := []string{"P", "Q", "R"}
	for i, role := range roles {
		person, agent := "p-"+string(role), "a-"+string(role)
		f.Person("ana", person, role)
		f.addAgent(agent, person)
		f.seated(t, id, agent, prefixes[i])
		if role.AtLeast(identity.Approver) {
			f.setPaused(t, "agent:"+agent, id, "@bram", true)
			require.Equal(t, "agent:"+agent, f.pausedBy(t, id, "@bram"))
			f.setPaused(t, "agent:"+agent, id, "@bram", false)
			require.Empty(t, f.pausedBy(t, id, "@bram"))
			continue
		}
		f.refusedBoth(t, agent, id, "@bram", "agent:wanda", errs.Forbidden, "owner or approver")
	}
	f.VerifyLog()
}
