package pacts_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// The rate limit's refusal says when the next write is allowed: the
// seconds until the oldest counted write leaves the minute, rounded up, so
// a seat that waits as long as it was told is let through. With the
// writes moved to 30.5 seconds ago, that is at most 30 seconds and never
// less than what is still left to wait after the refusal.
func TestTheRateLimitSaysTheWaitRoundedUp(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	for i := range pacts.WritesPerMinute {
		_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": fmt.Sprintf("note %d", i)})
		require.NoError(t, err)
	}
	// The feed is append-only; move the writes back with its triggers off.
	require.NoError(t, f.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE pact_feed SET at = clock_timestamp() - interval '30.5 seconds'
			WHERE pact_id = ? AND seat_key = '@wanda' AND kind = 'message'`, id)
		return err
	}))

	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "one too many"})
	require.Equal(t, errs.LimitExceeded, errs.CodeOf(err), "%v", err)
	e, _ := errs.As(err)
	m := regexp.MustCompile(`try again in (\d+) seconds$`).FindStringSubmatch(e.Message)
	require.NotNil(t, m, e.Message)
	said, _ := strconv.Atoi(m[1])

	var left float64
	require.NoError(t, f.DB.NewRaw(`SELECT extract(epoch FROM min(at) + interval '1 minute' - clock_timestamp())
		FROM pact_feed WHERE pact_id = ? AND seat_key = '@wanda' AND kind = 'message'`, id).Scan(context.Background(), &left))
	require.LessOrEqual(t, said, 30, "the oldest write is 30.5 s old: %s", e.Message)
	require.GreaterOrEqual(t, float64(said), left, "the wait told must cover what is left of the minute: %s", e.Message)
}

// A handshake note has no version: the log entry of a handshake write
// keeps the seat and the replaced note for Undo, and no version, which
// only a zone write has.
func TestAHandshakeWritesEntryKeepsNoVersion(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	for _, note := range []string{"I answer within the hour.", "I answer by noon."} {
		_, err := f.as("wanda", pacts.ToolHandshake, map[string]any{"pact_id": id, "handshake": note})
		require.NoError(t, err)
	}
	_, err := f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "zone text"})
	require.NoError(t, err)

	payloads := `SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = ? AND e.outcome = 'ok' AND e.actor = 'agent:wanda' AND p.content->>'pact_id' = ?`
	require.Equal(t, 1, f.Count(payloads+` AND p.content->>'seat' = '@wanda' AND p.content->>'previous' = 'I answer within the hour.'`,
		pacts.ToolHandshake, id), "the second handshake's entry keeps what it replaced")
	require.Equal(t, 0, f.Count(payloads+` AND p.content->'version' IS NOT NULL`, pacts.ToolHandshake, id),
		"no handshake entry has a version")
	require.Equal(t, 1, f.Count(payloads+` AND p.content->>'version' = '1'`, pacts.ToolUpdateSection, id),
		"a zone write's entry has the zone's version")
}

// Decision ids are UUIDs, and a UUID's hex digits may come in capitals: a
// person answering a decision named by its id in upper case answers that
// decision.
func TestAnAnswerReachesADecisionNamedInCapitals(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	// An id with both ends of the letter digits, a and f, so each is sent
	// as a capital.
	var d string
	for i := 0; i < 25 && !(strings.Contains(d, "a") && strings.Contains(d, "f")); i++ {
		d = f.raise(t, "wanda", id, fmt.Sprintf("Ship on day %d?", i), "Yes", "No")
	}
	require.True(t, strings.Contains(d, "a") && strings.Contains(d, "f"), "no decision id with both a and f in 25: %s", d)

	got := ok(t, f.adm("ana", "PUT", "/pact-decisions/"+strings.ToUpper(d)+"/answer", map[string]any{"choice": "Yes"}))
	require.Equal(t, id, got["pact_id"])
	answer, kind := f.storedAnswer(t, d)
	require.Equal(t, "Yes", answer)
	require.Equal(t, pacts.AnswerChoice, kind)
}

// Starting a pact is logged on the chain of the project it is started in,
// whether the start is made or refused after the project is known.
func TestCreatingAPactIsLoggedOnItsProject(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "", "purpose": "p", "prefix": "W"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)

	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = ? AND e.outcome = 'ok' AND e.project_id = 'web' AND p.content->>'pact_id' = ?`, pacts.ToolCreate, id))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE action = ? AND outcome = 'invalid_request' AND project_id = 'web'`,
		pacts.ToolCreate))
	f.VerifyLog()
}

// A pact has at most MaxSeats seats, the creator's among them: MaxSeats-1
// invitees make a full pact, one more is refused, saying both the limit
// and how many seats were asked for, and a full pact takes no invitation.
func TestAPactTakesAtMostMaxSeatsSeats(t *testing.T) {
	f := setup(t)
	invite := []any{map[string]any{"key": "@bram", "prefix": "B"}, map[string]any{"key": "@vera", "prefix": "V"}}
	f.Agent("ana", kerneltest.AgentInput{ID: "spare", Client: "code", Projects: []string{"web"}, Owner: "ana"})
	for i := len(invite); i < pacts.MaxSeats-1; i++ {
		agent := fmt.Sprintf("helper%d", i)
		f.Agent("ana", kerneltest.AgentInput{ID: agent, Client: "code", Projects: []string{"web"}, Owner: "ana"})
		invite = append(invite, map[string]any{"key": "@" + agent, "prefix": "H" + string(rune('A'+i))})
	}
	create := func(name string, invite []any) (map[string]any, error) {
		return f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": name, "purpose": "p", "prefix": "W", "invite": invite})
	}

	out, err := create("Full", invite)
	require.NoError(t, err)
	full := out["pact_id"].(string)
	require.Equal(t, pacts.MaxSeats, f.Count(`SELECT count(*) FROM pact_seats WHERE pact_id = ?`, full))
	_, err = f.as("wanda", pacts.ToolInvite, map[string]any{"pact_id": full, "key": "@spare", "prefix": "S"})
	require.Equal(t, errs.LimitExceeded, errs.CodeOf(err), "%v", err)
	require.Contains(t, err.Error(), fmt.Sprintf("has %d seats, the most a pact has", pacts.MaxSeats))
	require.Equal(t, pacts.MaxSeats, f.Count(`SELECT count(*) FROM pact_seats WHERE pact_id = ?`, full))

	_, err = create("Too full", append(invite, map[string]any{"key": "@spare", "prefix": "S"}))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	e, _ := errs.As(err)
	require.Equal(t, fmt.Sprintf("a pact has at most %d seats; %d were asked for", pacts.MaxSeats, pacts.MaxSeats+1), e.Message)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pacts`))
}

// A pact's name is 1-120 characters, its purpose 1-4,000, its rules at
// most 8,000 and a seat's display name at most 80, counted as characters,
// not bytes: each at its longest is accepted, one more is refused.
func TestAPactsTextLimitsAreInclusive(t *testing.T) {
	f := setup(t)
	n := 0
	create := func(args map[string]any) error {
		n++
		full := map[string]any{"project_id": "web", "name": fmt.Sprintf("Pact %d", n), "purpose": "p", "prefix": "W"}
		for k, v := range args {
			full[k] = v
		}
		_, err := f.as("wanda", pacts.ToolCreate, full)
		return err
	}
	for _, c := range []struct {
		field string
		max   int
		says  string
	}{
		{"name", 120, "name is 1-120 characters"},
		{"purpose", 4000, "purpose is 1-4,000 characters"},
		{"rules", 8000, "rules are at most 8,000 characters"},
		{"display_name", 80, "display name is at most 80 characters"},
	} {
		require.NoError(t, create(map[string]any{c.field: textOf(c.max)}), "a %s of %d characters", c.field, c.max)
		err := create(map[string]any{c.field: textOf(c.max) + "x"})
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "a %s of %d characters: %v", c.field, c.max+1, err)
		require.Contains(t, err.Error(), c.says)
	}
	// An invitee's display name has the creator's limit.
	invite := func(name string) error {
		return create(map[string]any{"invite": []any{map[string]any{"key": "@bram", "prefix": "B", "display_name": name}}})
	}
	require.NoError(t, invite(textOf(80)), "an invitee's display name of 80 characters")
	err := invite(textOf(80) + "x")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	require.Equal(t, 5, f.Count(`SELECT count(*) FROM pacts`))
}

// A seat the database itself refuses (here a check a trigger of the test's
// raises, as for a race no pre-check can see) fails the pact's start as
// the refusal it is, naming the seat, and nothing is made.
func TestASeatTheDatabaseRefusesIsRefusedByName(t *testing.T) {
	f := setup(t)
	_, err := f.DB.ExecContext(context.Background(), `
		CREATE FUNCTION test_refuse_seat() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.display_name = 'Refused' THEN
				RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'check_violation';
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER test_refuse_seat BEFORE INSERT ON pact_seats FOR EACH ROW EXECUTE FUNCTION test_refuse_seat();`)
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Refused seat", "purpose": "p", "prefix": "W",
		"invite": []any{map[string]any{"key": "@bram", "prefix": "B", "display_name": "Refused"}}})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	e, _ := errs.As(err)
	require.Regexp(t, `^seat @bram in pact [0-9a-f-]{36} is out of range$`, e.Message)
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pacts`))
}

// A NUL character, which PostgreSQL text cannot hold, in a seat's display
// name is refused as the caller's mistake, saying where it is, and nothing
// is made.
func TestASeatNameHoldingANULCharacterIsRefused(t *testing.T) {
	f := setup(t)
	_, err := f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Nul", "purpose": "p", "prefix": "W",
		"invite": []any{map[string]any{"key": "@bram", "prefix": "B", "display_name": "Br\x00am"}}})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	e, _ := errs.As(err)
	require.Contains(t, e.Message, "arguments.invite[].display_name holds a NUL character")
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pacts`))
}
