package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// admitSQL reads the agent with its organization's and the platform's kill
// switches and its projects. It writes nothing: last_seen is stamped after
// the call commits (Service.Seen).
const admitSQL = `SELECT ` + admitCols + admitFrom

// admitCols and admitFrom are admitSQL's parts, which admitTokenSQL shares.
const admitCols = `a.org_id, a.client,
		coalesce((SELECT array_agg(project_id ORDER BY project_id) FROM agent_projects WHERE agent_id = a.id),
			'{}') AS projects,
		(SELECT coalesce(json_agg(p ORDER BY p.id), '[]') FROM (SELECT ` + projectCols + ` FROM projects
			WHERE id IN (SELECT project_id FROM agent_projects WHERE agent_id = a.id)) p) AS project_rows,
		a.status, a.replaced_by, (s.halted OR o.halted) AS halted`

const admitFrom = `
	  FROM agents a JOIN orgs o ON o.id = a.org_id CROSS JOIN system_state s WHERE a.id = $1`

// admitTokenSQL is admitSQL that also says whether the token hashed to $2
// is live (not revoked, not expired at $3) and the agent's own.
const admitTokenSQL = `SELECT ` + admitCols + `,
		EXISTS (SELECT 1 FROM agent_tokens t WHERE t.token_hash = $2 AND t.agent_id = a.id
			AND t.revoked_at IS NULL AND t.expires_at > $3) AS token_live` + admitFrom

// ErrTokenRefused is AdmitTokenStep's answer for a token that is not a
// live token of the agent (or an agent that does not exist). It is not a
// refusal: the request was never authenticated, so nothing records it, and
// the transport answers 401 as it does to a token it checks itself.
var ErrTokenRefused = errors.New("identity: invalid or expired agent token")

// admitted is admitSQL's row.
type admitted struct {
	found      bool
	tokenLive  bool // AdmitTokenStep's: whether the token is live
	OrgID      string
	Client     string
	Projects   []string
	Rows       []byte
	Status     string
	ReplacedBy *string
	Halted     bool
}

// Admit is the first step of every tool call (kernel.Tools.Call): it
// refuses a call the agent may not make at all, in one statement, and
// returns the agent as a Caller (also with a refusal, so the refusal is
// logged in its organization). Refusals: agent_unknown when the agent does
// not exist; system_halted when the platform's or its organization's kill
// switch is on; agent_paused when it is paused, banned or replaced.
func Admit(ctx context.Context, d *db.DB, tx bun.IDB, agent string) (*Caller, error) {
	var rows []struct {
		OrgID      string   `bun:"org_id"`
		Client     string   `bun:"client"`
		Projects   []string `bun:"projects,array"`
		Rows       []byte   `bun:"project_rows"`
		Status     string   `bun:"status"`
		ReplacedBy *string  `bun:"replaced_by"`
		Halted     bool     `bun:"halted"`
	}
	if err := d.Fetch(ctx, tx, &rows, admitSQL, agent); err != nil {
		return nil, fmt.Errorf("admit agent %s: %w", agent, err)
	}
	var a admitted
	if len(rows) > 0 {
		r := rows[0]
		a = admitted{found: true, OrgID: r.OrgID, Client: r.Client, Projects: r.Projects, Rows: r.Rows,
			Status: r.Status, ReplacedBy: r.ReplacedBy, Halted: r.Halted}
	}
	return a.caller(agent)
}

// AdmitStep is Admit as the step that opens a pipelined transaction
// (db.Begin); after Begin, admit returns what Admit would have.
func AdmitStep(agent string) (step db.Step, admit func() (*Caller, error)) {
	var a admitted
	var scanErr error
	step = db.Step{SQL: admitSQL, Args: []any{agent}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		if rows.Next() {
			a.found = true
			scanErr = rows.Scan(&a.OrgID, &a.Client, &a.Projects, &a.Rows, &a.Status, &a.ReplacedBy, &a.Halted)
		}
		return scanErr
	}}
	return step, func() (*Caller, error) { return a.caller(agent) }
}

// AdmitTokenStep is AdmitStep that also checks, in the same statement,
// that token is a live token of the agent, so a tool call's bearer token
// costs no round trip of its own (docs/benchmarks.md, "Round trips"). A
// token that is not is ErrTokenRefused, before every other answer: an
// unauthenticated caller learns nothing of the agent.
func (s *Service) AdmitTokenStep(agent, token string) (step db.Step, admit func() (*Caller, error)) {
	var a admitted
	var scanErr error
	step = db.Step{SQL: admitTokenSQL, Args: []any{agent, HashToken(token), s.now()}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		if rows.Next() {
			a.found = true
			scanErr = rows.Scan(&a.OrgID, &a.Client, &a.Projects, &a.Rows, &a.Status, &a.ReplacedBy, &a.Halted, &a.tokenLive)
		}
		return scanErr
	}}
	return step, func() (*Caller, error) {
		if !strings.HasPrefix(token, TokenPrefix) || !a.found || !a.tokenLive {
			return nil, ErrTokenRefused
		}
		return a.caller(agent)
	}
}

// caller is the Caller a and the refusal, if any.
func (a *admitted) caller(agent string) (*Caller, error) {
	if !a.found {
		return nil, errs.E(errs.AgentUnknown, "agent %s is not registered on this board", agent)
	}
	c := &Caller{ID: agent, OrgID: a.OrgID, Client: a.Client, Projects: a.Projects}
	if err := json.Unmarshal(a.Rows, &c.rows); err != nil {
		return nil, fmt.Errorf("admit agent %s: its projects: %w", agent, err)
	}
	switch {
	case a.Halted:
		return c, errs.E(errs.SystemHalted, "the kill switch is on; the board takes no calls until a person turns it off")
	case a.Status != "active" && a.ReplacedBy != nil:
		return c, errs.E(errs.AgentPaused, "agent %s was replaced by %s: connect to /mcp/a/%s and use that agent from now on", agent, *a.ReplacedBy, *a.ReplacedBy)
	case a.Status != "active":
		return c, errs.E(errs.AgentPaused, "agent %s is %s", agent, a.Status)
	}
	return c, nil
}
