package kernel_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
)

// freezeTool freezes project "web", then refuses when asked to: the freeze
// shows whether the body's writes survived.
func freezeTool() kernel.Tool {
	return kernel.Tool{
		Name: "demo_freeze", Effect: kernel.Updates, Title: "Freeze", Description: "Freezes project web; refuses when refuse is true.",
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"refuse": {Type: "boolean"}, "crash": {Type: "boolean"},
		}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		Run: func(ctx context.Context, c *kernel.Call) (any, error) {
			if _, err := c.Tx.ExecContext(ctx, `UPDATE projects SET frozen = true WHERE id = 'web'`); err != nil {
				return nil, err
			}
			c.Entry.ProjectID = "web"
			var in struct{ Refuse, Crash bool }
			_ = json.Unmarshal(c.Args, &in)
			if in.Refuse {
				return nil, errs.E(errs.ScopeExceeded, "not allowed")
			}
			if in.Crash {
				return nil, errors.New("boom")
			}
			return map[string]string{"agent": c.AgentID, "org": c.OrgID}, nil
		},
	}
}

func toolFixture(t *testing.T) (*db.DB, *kernel.Tools) {
	d := pgtest.New(t)
	_, err := d.ExecContext(context.Background(), `
		INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('web', 'default', 'Web', 'ana');
		INSERT INTO agents (id, org_id, owner, client) VALUES ('code-web', 'default', 'ana', 'code'), ('code-new', 'default', 'ana', 'code');`)
	require.NoError(t, err)
	r := kernel.NewTools(d, ledger.New(nil), nil)
	require.NoError(t, r.Add(freezeTool()))
	return d, r
}

type state struct {
	Frozen  bool    `bun:"frozen"`
	Entries int     `bun:"entries"`
	Outcome *string `bun:"outcome"`
	Agent   *string `bun:"agent_id"`
	Chain   *string `bun:"chain_key"`
}

func snapshot(t *testing.T, d *db.DB) state {
	var s state
	require.NoError(t, d.NewRaw(`SELECT (SELECT frozen FROM projects WHERE id = 'web') AS frozen,
		(SELECT count(*) FROM entries) AS entries,
		(SELECT outcome FROM entries ORDER BY id DESC LIMIT 1) AS outcome,
		(SELECT agent_id FROM entries ORDER BY id DESC LIMIT 1) AS agent_id,
		(SELECT chain_key FROM entries ORDER BY id DESC LIMIT 1) AS chain_key`).Scan(context.Background(), &s))
	return s
}

func TestToolCallCommitsTheBodyWithItsEntry(t *testing.T) {
	d, r := toolFixture(t)
	out, err := r.Call(context.Background(), "code-web", "demo_freeze", nil)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"agent": "code-web", "org": "default"}, out)
	s := snapshot(t, d)
	require.True(t, s.Frozen)
	require.Equal(t, 1, s.Entries)
	require.Equal(t, "ok", *s.Outcome)
	require.Equal(t, "web", *s.Chain)
}

func TestARefusedToolCallChangesNothingButItsEntry(t *testing.T) {
	d, r := toolFixture(t)
	_, err := r.Call(context.Background(), "code-web", "demo_freeze", json.RawMessage(`{"refuse": true}`))
	require.Equal(t, errs.ScopeExceeded, errs.CodeOf(err))
	s := snapshot(t, d)
	require.False(t, s.Frozen, "the body's write rolled back")
	require.Equal(t, 1, s.Entries)
	require.Equal(t, "scope_exceeded", *s.Outcome)
	require.Equal(t, "code-web", *s.Agent)

	for _, bad := range []string{`{"refuse": "yes"}`, `{"unknown": 1}`, `[1]`, `{`} {
		_, err = r.Call(context.Background(), "code-web", "demo_freeze", json.RawMessage(bad))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), bad)
	}
	require.Equal(t, 5, snapshot(t, d).Entries, "mistyped arguments are refused, logged, and change nothing")
	require.False(t, snapshot(t, d).Frozen)

	_, err = r.Call(context.Background(), "code-web", "demo_freeze", json.RawMessage(`{"crash": true}`))
	require.Equal(t, errs.Internal, errs.CodeOf(err))
	require.Equal(t, 5, snapshot(t, d).Entries, "an internal error is not a refusal and is not logged")
}

func TestTheGateRefusesBeforeTheBodyRuns(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, setup, agent string
		want               errs.Code
		message            string
	}{
		{"unknown agent", ``, "ghost", errs.AgentUnknown, "agent ghost is not registered on this board"},
		{"platform halted", `UPDATE system_state SET halted = true`, "code-web", errs.SystemHalted, ""},
		{"org halted", `UPDATE orgs SET halted = true WHERE id = 'default'`, "code-web", errs.SystemHalted, ""},
		{"paused", `UPDATE agents SET status = 'paused' WHERE id = 'code-web'`, "code-web", errs.AgentPaused, "agent code-web is paused"},
		{"replaced", `UPDATE agents SET status = 'banned', replaced_by = 'code-new' WHERE id = 'code-web'`, "code-web", errs.AgentPaused,
			"agent code-web was replaced by code-new: connect to /mcp/a/code-new and use that agent from now on"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, r := toolFixture(t)
			if tc.setup != "" {
				_, err := d.ExecContext(ctx, tc.setup)
				require.NoError(t, err)
			}
			_, err := r.Call(ctx, tc.agent, "demo_freeze", nil)
			require.Equal(t, tc.want, errs.CodeOf(err))
			if tc.message != "" {
				e, _ := errs.As(err)
				require.Equal(t, tc.message, e.Message)
			}
			s := snapshot(t, d)
			require.False(t, s.Frozen)
			require.Equal(t, 1, s.Entries)
			require.Equal(t, string(tc.want), *s.Outcome)
		})
	}
}

func TestToolRegistryRefusesBadTools(t *testing.T) {
	_, r := toolFixture(t)
	require.Error(t, r.Add(freezeTool()), "duplicate")
	bad := freezeTool()
	bad.Name = "Bad Name"
	require.Error(t, r.Add(bad))
	noSchema := freezeTool()
	noSchema.Name, noSchema.Input = "other", nil
	require.Error(t, r.Add(noSchema))
	noDoc := freezeTool()
	noDoc.Name, noDoc.Description = "other", ""
	require.Error(t, r.Add(noDoc))
	require.Equal(t, []string{"demo_freeze"}, r.Names())
	_, err := r.Call(context.Background(), "code-web", "nope", nil)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}

// A tool's reads ahead travel with the gate in the round trip that opens
// the call's transaction, and the body takes what they kept: a plain call
// is two round trips, BEGIN with the gate and reads, and the entry with
// COMMIT. A paused agent's call reads ahead too, and is still refused.
func TestReadsAheadRideWithTheGate(t *testing.T) {
	d, r := toolFixture(t)
	ctx := context.Background()
	var took []any
	require.NoError(t, r.Add(kernel.Tool{
		Name: "demo_ahead", Effect: kernel.Reads, Title: "Read ahead", Description: "Reads a project ahead and answers it.",
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"project": {Type: "string"}},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		ReadAhead: func(args map[string]any) []db.Step {
			var name string
			return []db.Step{{SQL: `SELECT name FROM projects WHERE id = $1`, Args: []any{args["project"]},
				Rows: func(tx *db.Tx, rows pgx.Rows) error {
					err := db.OneRow(&name)(tx, rows)
					tx.Keep("name", name)
					return err
				}}}
		},
		Run: func(ctx context.Context, c *kernel.Call) (any, error) {
			v, ok := c.Tx.Take("name")
			took = append(took, v)
			if !ok {
				return nil, errs.E(errs.Internal, "nothing was read ahead")
			}
			return v, nil
		},
	}))
	var trips []string
	stop := d.Watch(func(sql string) {
		if !strings.HasPrefix(sql, "<prepare>") {
			trips = append(trips, sql)
		}
	})
	out, err := r.Call(ctx, "code-web", "demo_ahead", json.RawMessage(`{"project": "web"}`))
	stop()
	require.NoError(t, err)
	require.Equal(t, "Web", out)
	require.Len(t, trips, 2, "%q", trips)
	require.Contains(t, trips[0], "SELECT name FROM projects")

	_, err = d.ExecContext(ctx, `UPDATE agents SET status = 'paused' WHERE id = 'code-web'`)
	require.NoError(t, err)
	_, err = r.Call(ctx, "code-web", "demo_ahead", json.RawMessage(`{"project": "web"}`))
	require.Equal(t, errs.AgentPaused, errs.CodeOf(err))
	require.Len(t, took, 1, "a refused gate runs no body")
}

// TestKillSwitchesStopOnlyTheirOrganization runs tool calls through the
// real gate with two organizations (ID-005): an organization's kill switch
// refuses its own agents' calls with system_halted and never another's, and
// the platform's refuses everyone's.
func TestKillSwitchesStopOnlyTheirOrganization(t *testing.T) {
	ctx := context.Background()
	d, r := toolFixture(t)
	_, err := d.ExecContext(ctx, `
		INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role) VALUES ('bo', 'acme', 'Bo', 'owner');
		INSERT INTO agents (id, org_id, owner, client) VALUES ('code-rocket', 'acme', 'bo', 'code');`)
	require.NoError(t, err)
	require.NoError(t, r.Add(kernel.Tool{
		Name: "demo_org", Effect: kernel.Reads, Title: "Organization", Description: "Answers the caller's organization.",
		Input: &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		Run: func(ctx context.Context, c *kernel.Call) (any, error) {
			return map[string]string{"org": c.OrgID}, nil
		},
	}))
	set := func(stmt string) {
		t.Helper()
		_, err := d.ExecContext(ctx, stmt)
		require.NoError(t, err)
	}
	// calls reports, for each agent, the code its call was refused with, or
	// "ok" with the organization it ran in.
	calls := func() map[string]string {
		t.Helper()
		got := map[string]string{}
		for agent, org := range map[string]string{"code-web": "default", "code-rocket": "acme"} {
			out, err := r.Call(ctx, agent, "demo_org", nil)
			if err != nil {
				require.True(t, errs.IsRefusal(err), "%s: %v", agent, err)
				got[agent] = string(errs.CodeOf(err))
				continue
			}
			require.Equal(t, map[string]string{"org": org}, out)
			got[agent] = "ok"
		}
		return got
	}
	halted := string(errs.SystemHalted)

	require.Equal(t, map[string]string{"code-web": "ok", "code-rocket": "ok"}, calls())
	set(`UPDATE orgs SET halted = true WHERE id = 'default'`)
	require.Equal(t, map[string]string{"code-web": halted, "code-rocket": "ok"}, calls(), "default halted")
	set(`UPDATE orgs SET halted = false WHERE id = 'default'; UPDATE orgs SET halted = true WHERE id = 'acme'`)
	require.Equal(t, map[string]string{"code-web": "ok", "code-rocket": halted}, calls(), "acme halted")
	set(`UPDATE orgs SET halted = false WHERE id = 'acme'; UPDATE system_state SET halted = true`)
	require.Equal(t, map[string]string{"code-web": halted, "code-rocket": halted}, calls(), "the platform halted")
	set(`UPDATE system_state SET halted = false`)
	require.Equal(t, map[string]string{"code-web": "ok", "code-rocket": "ok"}, calls(), "everything resumed")
	var logged []string
	require.NoError(t, d.NewRaw(`SELECT org_id || ' ' || agent_id FROM entries WHERE outcome = 'system_halted' ORDER BY id`).
		Scan(ctx, &logged))
	require.ElementsMatch(t, []string{"default code-web", "acme code-rocket", "default code-web", "acme code-rocket"}, logged,
		"each refusal is logged in the caller's own organization")
}
