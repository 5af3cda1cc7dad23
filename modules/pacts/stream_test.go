package pacts_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/pacts"
)

// The stream wakes on commits (the events hub): each test waits at most
// 10 s for an event, under the stream's own 15 s re-check.
func streamWorld(t *testing.T) *fixture {
	return setupWith(t, kerneltest.Options{Events: true}, pacts.Options{})
}

func TestStreamResumesAfterADroppedConnectionWithLastEventID(t *testing.T) {
	f := streamWorld(t)
	id := f.pact(t)
	out, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "stream"})
	require.NoError(t, err)
	require.Equal(t, "/pacts/stream", out["stream"].(map[string]any)["path"])

	s := f.stream(t, "bram", "", "")
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "First: " + strings.Repeat("x", 500)})
	require.NoError(t, err)
	first := s.next(t)
	require.Equal(t, "message", first.Kind)
	require.Equal(t, "W-001", first.Data["ref"])
	require.Equal(t, "Launch", first.Data["pact"])
	require.Len(t, []rune(first.Data["excerpt"].(string)), 400, "an event carries the first 400 characters")
	n, err := strconv.ParseInt(first.ID, 10, 64)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"tool": "get_pact", "arguments": map[string]any{"pact_id": id, "since": float64(n - 1)}},
		first.Data["read_rest"])

	// The connection drops; two messages land meanwhile.
	s.cancel()
	for _, body := range []string{"Second", "Third"} {
		_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": body})
		require.NoError(t, err)
	}
	s = f.stream(t, "bram", "", first.ID)
	second, third := s.next(t), s.next(t)
	require.Equal(t, []any{"W-002", "W-003"}, []any{second.Data["ref"], third.Data["ref"]})
	require.Equal(t, "Second", second.Data["excerpt"])

	// read_rest is the call that reads the rest, once the mandate is added.
	args := third.Data["read_rest"].(map[string]any)["arguments"].(map[string]any)
	got, err := f.as("bram", pacts.ToolGet, args)
	require.NoError(t, err)
	msgs := got["messages"].([]any)
	require.Equal(t, "W-003", msgs[len(msgs)-1].(map[string]any)["number"])
}

func TestStreamNeverSendsAnAgentItsOwnMessages(t *testing.T) {
	f := streamWorld(t)
	id := f.pact(t)
	s := f.stream(t, "bram", "", "")
	_, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "mine"})
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "hers"})
	require.NoError(t, err)
	ev := s.next(t)
	require.Equal(t, "W-001", ev.Data["ref"], "bram's own B-001 is never sent to bram")
	require.Equal(t, "@wanda", ev.Data["seat"])

	// Replaying the whole feed holds nothing of bram's either.
	s.cancel()
	s = f.stream(t, "bram", "", "0")
	for {
		ev := s.next(t)
		require.NotEqual(t, "@bram", ev.Data["seat"], "%+v", ev)
		require.NotEqual(t, "agent:bram", ev.Data["actor"], "%+v", ev)
		if ev.Data["ref"] == "W-001" {
			break
		}
	}
}

func TestStreamFilterSelectsPacts(t *testing.T) {
	f := streamWorld(t)
	one, two := f.pact(t), f.pact(t)
	s := f.stream(t, "bram", "?pacts="+two, "0")
	for _, p := range []string{one, two} {
		_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": p, "body": "hello " + p})
		require.NoError(t, err)
	}
	for {
		ev := s.next(t)
		require.Equal(t, two, ev.Data["pact_id"], "only the pact the filter names: %+v", ev)
		if ev.Kind == "message" {
			break
		}
	}
	s.none(t, 300*time.Millisecond)
}

func TestStreamRefusesWithoutALiveAgentToken(t *testing.T) {
	f := streamWorld(t)
	get := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, f.URL+"/pacts/stream", nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	status, body := get("")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Contains(t, body, `"error":"unauthorized"`)
	status, _ = get("pact_notatoken")
	require.Equal(t, http.StatusUnauthorized, status)
	status, _ = get(f.AdminToken("ana"))
	require.Equal(t, http.StatusUnauthorized, status, "a person's token is not an agent's")
	f.RevokeTokens("bram")
	status, _ = get(f.Token("bram"))
	require.Equal(t, http.StatusUnauthorized, status, "a revoked token is not live")
}

// Every state an agent may be in but active (the values of the agents
// table's status CHECK, read from the database), each also as a replaced
// agent's (replaced_by set, as people's replacement leaves it), refuses
// the stream with 403 agent_paused, as a tool call would be; a replaced
// agent is told which agent replaced it (PACT-010).
func TestStreamRefusesAnAgentInEveryStateButActive(t *testing.T) {
	f := streamWorld(t)
	ctx := context.Background()
	var def string
	require.NoError(t, f.DB.NewRaw(`SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'agents'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%'`).Scan(ctx, &def))
	var states []string
	for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(def, -1) {
		states = append(states, m[1])
	}
	require.Contains(t, states, "active", def)
	tried := 0
	for _, state := range states {
		for _, replaced := range []bool{false, true} {
			if state == "active" && replaced {
				continue // people's replacement bans the agent it replaces
			}
			agent := "s-" + state
			if replaced {
				agent += "-replaced"
			}
			t.Run(agent, func(t *testing.T) {
				f.addAgent(agent, "ana")
				require.NoError(t, f.SetAgentStatus(agent, state))
				if replaced {
					f.Exec(`UPDATE agents SET replaced_by = 'wanda' WHERE id = ?`, agent)
				}
				ctx, cancel := context.WithCancel(ctx)
				defer cancel() // before the body's Close: an open stream never ends by itself
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL+"/pacts/stream", nil)
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer "+f.Token(agent))
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				if state == "active" {
					require.Equal(t, http.StatusOK, resp.StatusCode)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				require.Equal(t, http.StatusForbidden, resp.StatusCode, "%s: %s", agent, body)
				require.Contains(t, string(body), `"error":"agent_paused"`, agent)
				if replaced {
					require.Contains(t, string(body), "replaced by wanda", agent)
				}
				tried++
			})
		}
	}
	require.Equal(t, 2*(len(states)-1), tried, "every state but active, replaced or not: %v", states)
}

// No change an agent makes reaches it over its stream, whatever the
// change's kind and whether or not its feed row carries the agent's seat
// key (a pause or wake of another seat carries none), and every change of
// anyone else does, a person pausing and waking the agent's own seat
// included (PACT-009). The population: every kind the pact feed allows
// (pact_feed's CHECK, read from the database), each made in the test; the
// agent's own changes are every pact tool that writes, and the people's
// pausing, waking and answering.
func TestStreamNeverSendsAnAgentItsOwnChangeOfAnyKind(t *testing.T) {
	f := streamWorld(t)
	id := f.pact(t)
	var from int64
	require.NoError(t, f.DB.NewRaw(`SELECT max(seq) FROM pact_feed WHERE pact_id = ?`, id).Scan(context.Background(), &from))
	live := f.stream(t, "bram", "", "")

	others := f.changeOfEveryFeedKind(t, id)
	var all, after []string
	for _, seq := range others {
		all = append(all, strconv.FormatInt(seq, 10))
		if seq > from {
			after = append(after, strconv.FormatInt(seq, 10))
		}
	}

	heard := func(s *sseClient) []string {
		var ids []string
		for {
			ev := s.next(t)
			require.NotEqual(t, "agent:bram", ev.Data["actor"], "bram is sent his own change: %+v", ev)
			require.NotEqual(t, "@bram", ev.Data["seat"], "bram is sent his own change: %+v", ev)
			ids = append(ids, ev.ID)
			if ev.Kind == "message" && ev.Data["seat"] == "@wanda" {
				return ids
			}
		}
	}
	require.Equal(t, after, heard(live), "live, bram hears every change of others and none of his")
	require.Equal(t, all, heard(f.stream(t, "bram", "", "0")), "replayed, the same")
}

// changeOfEveryFeedKind makes, in pact id (f.pact's, bram and wanda
// joined), a change of every kind the pact feed allows (pact_feed's CHECK,
// read from the database; a kind the test makes no change of fails it):
// bram's own through every pact tool that writes (post, zone, decision,
// handshake, invite, and his pause and wake of wanda's seat, whose feed
// rows carry no seat key of his), and others' (ana pausing and waking
// bram's seat, ana's answer, and last wanda's post "the end"). It returns
// the numbers (seq), oldest first, of every row of the pact's feed that is
// not bram's own: neither his as actor nor on his seat.
func (f *fixture) changeOfEveryFeedKind(t *testing.T, id string) []int64 {
	t.Helper()
	for tool, args := range map[string]map[string]any{
		pacts.ToolPost:          {"body": "mine"},
		pacts.ToolUpdateSection: {"body": "my zone"},
		pacts.ToolHandshake:     {"handshake": "mornings"},
		pacts.ToolInvite:        {"key": "@vera", "prefix": "V"},
	} {
		args["pact_id"] = id
		_, err := f.as("bram", tool, args)
		require.NoError(t, err, tool)
	}
	decision := f.raise(t, "bram", id, "Blue or green?", "Blue", "Green")
	f.setPaused(t, "agent:bram", id, "@wanda", true)
	f.setPaused(t, "agent:bram", id, "@wanda", false)
	f.setPaused(t, "human:ana", id, "@bram", true)
	f.setPaused(t, "human:ana", id, "@bram", false)
	ok(t, f.adm("ana", http.MethodPut, "/pact-decisions/"+decision+"/answer", map[string]any{"answer": "Blue."}))
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "the end"})
	require.NoError(t, err)

	type row struct {
		Seq     int64   `bun:"seq"`
		Kind    string  `bun:"kind"`
		Actor   string  `bun:"actor"`
		SeatKey *string `bun:"seat_key"`
	}
	var rows []row
	require.NoError(t, f.DB.NewRaw(`SELECT seq, kind, actor, seat_key FROM pact_feed WHERE pact_id = ? ORDER BY seq`, id).
		Scan(context.Background(), &rows))
	var def string
	require.NoError(t, f.DB.NewRaw(`SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'pact_feed'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%kind%'`).
		Scan(context.Background(), &def))
	kinds := map[string]bool{}
	for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(def, -1) {
		kinds[m[1]] = false
	}
	require.NotEmpty(t, kinds, def)
	var others []int64
	ownWithoutSeat := 0
	for _, r := range rows {
		_, known := kinds[r.Kind]
		require.True(t, known, "feed kind %s is not in %s", r.Kind, def)
		kinds[r.Kind] = true
		if r.Actor == "agent:bram" && r.SeatKey == nil {
			ownWithoutSeat++
		}
		if r.Actor == "agent:bram" || (r.SeatKey != nil && *r.SeatKey == "@bram") {
			continue
		}
		others = append(others, r.Seq)
	}
	for k, made := range kinds {
		require.True(t, made, "the test makes no change of feed kind %s", k)
	}
	require.Equal(t, 2, ownWithoutSeat, "bram's pause and wake of wanda carry no seat key of his")
	return others
}
