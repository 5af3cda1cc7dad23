package pacts_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// clock is a board clock a test moves.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// sweep runs the nudge sweep and returns how many owners it told.
func sweep(t *testing.T, m *pacts.Module) int {
	t.Helper()
	n, err := m.SweepNudges(context.Background())
	require.NoError(t, err)
	return n
}

func (f *fixture) nudges(owner string) int {
	return f.Count(`SELECT count(*) FROM notifications WHERE kind = 'pact_unread' AND human_id = ?`, owner)
}

// An unread message nudges the pact's owner once, at most once an hour per
// pact, and not once another participant has read it.
func TestUnreadNudgesOncePerMessageAndAtMostHourly(t *testing.T) {
	c := &clock{at: time.Now()}
	f, m := setupAt(t, c.now)
	id := f.pact(t) // wanda's pact: its owner is ana, wanda's person
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "W-001: anyone?"})
	require.NoError(t, err)
	require.Zero(t, sweep(t, m), "not yet 30 minutes")

	c.add(31 * time.Minute)
	require.Equal(t, 1, sweep(t, m))
	require.Equal(t, 1, f.nudges("ana"))
	require.Zero(t, sweep(t, m), "once per message")

	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "W-002"})
	require.NoError(t, err)
	c.add(31 * time.Minute)
	require.Zero(t, sweep(t, m), "at most once an hour per pact")
	c.add(30 * time.Minute)
	require.Equal(t, 1, sweep(t, m), "W-002, once the hour has passed")
	c.add(2 * time.Hour)
	require.Zero(t, sweep(t, m), "W-001 and W-002 were each nudged once")
	require.Equal(t, 2, f.nudges("ana"))

	// A message another participant has read is not nudged.
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "W-003"})
	require.NoError(t, err)
	_, err = f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	c.add(2 * time.Hour)
	require.Zero(t, sweep(t, m))

	// A closed pact nudges nobody.
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "B-001"})
	require.NoError(t, err)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/close", nil))
	c.add(2 * time.Hour)
	require.Zero(t, sweep(t, m))
	require.Equal(t, 2, f.nudges("ana"))
}

// The threshold is the owner's own setting: 30m, 1h, 3h, 12h or 24h.
func TestTheNudgeThresholdIsPerPerson(t *testing.T) {
	c := &clock{at: time.Now()}
	f, m := setupAt(t, c.now)
	require.Equal(t, "30m", ok(t, f.adm("ana", "GET", "/me/pact-settings", nil))["nudge_after"])
	ok(t, f.adm("ana", "PUT", "/me/pact-settings", map[string]any{"nudge_after": "3h"}))
	require.Equal(t, "3h", ok(t, f.adm("ana", "GET", "/me/pact-settings", nil))["nudge_after"])
	require.Equal(t, "30m", ok(t, f.adm("vic", "GET", "/me/pact-settings", nil))["nudge_after"], "each person their own")
	r := f.adm("ana", "PUT", "/me/pact-settings", map[string]any{"nudge_after": "2h"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.Raw)

	id := f.pact(t)
	_, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "B-001"})
	require.NoError(t, err)
	c.add(time.Hour)
	require.Zero(t, sweep(t, m), "ana waits 3 hours")
	c.add(2*time.Hour + time.Minute)
	require.Equal(t, 1, sweep(t, m))
	require.Equal(t, 1, f.nudges("ana"))
}
