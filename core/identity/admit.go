package identity

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// Admit is the first step of every tool call (kernel.Tools.Call): it
// refuses a call the agent may not make at all, in one query, and returns
// the agent's organization (also with a refusal, so the refusal is logged
// there). Refusals: agent_unknown when the agent does not exist;
// system_halted when the platform's or its organization's kill switch is
// on; agent_paused when it is paused, banned or replaced.
func Admit(ctx context.Context, tx bun.IDB, agent string) (org string, err error) {
	var rows []struct {
		OrgID      string  `bun:"org_id"`
		Status     string  `bun:"status"`
		ReplacedBy *string `bun:"replaced_by"`
		Halted     bool    `bun:"halted"`
	}
	err = tx.NewRaw(`SELECT a.org_id, a.status, a.replaced_by, (s.halted OR o.halted) AS halted
		FROM agents a JOIN orgs o ON o.id = a.org_id CROSS JOIN system_state s WHERE a.id = ?`, agent).Scan(ctx, &rows)
	if err != nil {
		return "", fmt.Errorf("admit agent %s: %w", agent, err)
	}
	if len(rows) == 0 {
		return "", errs.E(errs.AgentUnknown, "agent %s is not registered on this board", agent)
	}
	a := rows[0]
	switch {
	case a.Halted:
		return a.OrgID, errs.E(errs.SystemHalted, "the kill switch is on; the board takes no calls until a person turns it off")
	case a.Status != "active" && a.ReplacedBy != nil:
		return a.OrgID, errs.E(errs.AgentPaused, "agent %s was replaced by %s: connect to /mcp/a/%s and use that agent from now on", agent, *a.ReplacedBy, *a.ReplacedBy)
	case a.Status != "active":
		return a.OrgID, errs.E(errs.AgentPaused, "agent %s is %s", agent, a.Status)
	}
	return a.OrgID, nil
}

// MarkSeen stamps the agent's last_seen, inside the call's transaction.
func MarkSeen(ctx context.Context, tx bun.IDB, agent string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE agents SET last_seen = now() WHERE id = ?`, agent); err != nil {
		return fmt.Errorf("mark agent %s seen: %w", agent, err)
	}
	return nil
}
