package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/people"
)

// The Overview (issue 31, section 2, "Pictures"; docs/console.md,
// "Overview"): its numbers are the board's.

// overviewBoard is a console board holding tasks in every kind of state
// the overview counts: one waiting for approval and one deferred to people
// (fill), one open, one completed by ops-web, which spent 9 of its root
// mandate's 10 turns on it, and one failed.
func overviewBoard(t *testing.T) (c *consoleBoard, task, pact string) {
	t.Helper()
	c = startConsoleBoard(t)
	task, pact = c.fill()
	c.post("Write the notes", "")
	reg, err := registerAgent(t.Context(), c.d, c.ident, demoOwner, people.AgentInput{ID: "ops-web", Client: "code", Projects: []string{"web"},
		Scope: []string{"task.read@project:web", "task.post@project:web", "task.work@project:web"}, Limits: map[string]float64{"turns": 10}})
	require.NoError(t, err)
	ops, root := connect(t, c.public, "ops-web", reg.Token), reg.RootMandateID.String()
	done := ops.ok("pact_post", map[string]any{"project_id": "web", "title": "Rotate the logs", "mandate_id": root})["task_id"].(string)
	ops.ok("pact_claim", map[string]any{"task_id": done, "mandate_id": root})
	ops.ok("pact_report", map[string]any{"task_id": done, "mandate_id": root, "status": "completed", "usage": map[string]any{"turns": 9},
		"result": map[string]any{"handoff": "- Done: rotated"}})
	failed := c.post("Migrate the database", "")
	c.agent.ok("pact_claim", map[string]any{"task_id": failed, "mandate_id": c.root})
	c.agent.ok("pact_report", map[string]any{"task_id": failed, "mandate_id": c.root, "status": "failed",
		"result": map[string]any{"handoff": "- Blocked: no access"}})
	return c, task, pact
}

// TestConsoleOverviewShowsTheBoardsNumbers: the overview's tasks by state
// are the board's tasks counted in the database; its tasks per day show
// today's completed, failed and waiting tasks and nothing on other days;
// agents online are the Admin API's; the budget nearest its limit is
// ops-web's 9 of 10 turns.
func TestConsoleOverviewShowsTheBoardsNumbers(t *testing.T) {
	c, _, _ := overviewBoard(t)
	p := c.signIn(ana, "Ana Approver")

	// Who is online, as the Admin API says, read as Ana.
	p.Goto(c.public + "/admin/api/agents")
	var agents struct{ Agents []struct{ Online bool } }
	require.NoError(t, json.Unmarshal([]byte(p.Text("body")), &agents))
	online := 0
	for _, a := range agents.Agents {
		if a.Online {
			online++
		}
	}

	p.Goto(c.public + "/console/overview")
	p.ExpectText("Tasks per day")
	p.ExpectText("Seen in the last hour")

	// Tasks by state: every state the board holds, with its count, and no other.
	var states []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	require.NoError(t, c.d.NewRaw(`SELECT t.status, count(*) AS n FROM tasks t JOIN projects p ON p.id = t.project_id
		WHERE p.org_id = 'default' GROUP BY t.status`).Scan(t.Context(), &states))
	require.Len(t, states, 5, "waiting for approval, deferred, open, completed, failed: %v", states)
	for _, s := range states {
		require.Equal(t, fmt.Sprint(s.N), p.Text(`table.states tr[data-state="`+s.Status+`"] td`), s.Status)
	}
	require.Len(t, strings.Split(strings.TrimSpace(p.Text("table.states tbody")), "\n"), len(states), "no state the board lacks")

	// Tasks per day: today 1 completed, 1 failed and 2 waiting on people
	// (the approval and the deferred question); the other 13 days none.
	today := time.Now().UTC()
	require.Equal(t, today.Format("2006-01-02")+"\t1\t1\t2", p.Text(`table.days tr[data-day="`+today.Format("2006-01-02")+`"]`))
	rows := strings.Split(strings.TrimSpace(p.Text("table.days tbody")), "\n")
	require.Len(t, rows, 14)
	for _, r := range rows[:13] {
		require.True(t, strings.HasSuffix(r, "\t0\t0\t0"), r)
	}

	require.Equal(t, fmt.Sprint(online), p.Text(".agents-online"))
	nearest := p.Text("ol.budgets > li")
	require.Contains(t, nearest, "ops-web")
	require.Contains(t, nearest, "9 of 10 used")
	c.requireAdminAPIOnly()
}
