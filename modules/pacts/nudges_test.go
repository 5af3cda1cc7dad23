package pacts_test

import (
	"context"
	"encoding/json"
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

func (c *clock) set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = at
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

// nudgeThresholds are the thresholds a person may choose: the enum of
// nudge_after in the OpenAPI document the board serves (what the Admin API
// accepts), each with its length.
func nudgeThresholds(t *testing.T, f *fixture) map[string]time.Duration {
	t.Helper()
	resp, err := http.Get(f.URL + "/admin/api/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	out := map[string]time.Duration{}
	for name, s := range doc.Components.Schemas {
		for _, label := range s.Properties["nudge_after"].Enum {
			d, err := time.ParseDuration(label)
			require.NoError(t, err, "%s: nudge_after %q is a duration", name, label)
			out[label] = d
		}
	}
	require.NotEmpty(t, out, "the Admin API takes a nudge_after")
	return out
}

// Every threshold a person may choose (nudgeThresholds, from the served
// document) is kept as chosen and holds to the minute: a message unread
// for a minute less than it nudges nobody, a minute more nudges the owner
// once (PACT-017).
func TestEveryNudgeThresholdHoldsToTheMinute(t *testing.T) {
	c := &clock{at: time.Now()}
	f, m := setupAt(t, c.now)
	thresholds := nudgeThresholds(t, f)
	require.Contains(t, thresholds, "30m", "the default is one of them")
	nudged := 0
	for label, d := range thresholds {
		ok(t, f.adm("ana", "PUT", "/me/pact-settings", map[string]any{"nudge_after": label}))
		require.Equal(t, label, ok(t, f.adm("ana", "GET", "/me/pact-settings", nil))["nudge_after"])
		id := f.pact(t) // a fresh pact: the hourly limit is per pact
		_, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "unread for " + label})
		require.NoError(t, err)
		c.set(time.Now()) // the message's created_at is the database's now()
		c.add(d - time.Minute)
		require.Zero(t, sweep(t, m), "%s: a minute early", label)
		c.add(2 * time.Minute)
		require.Equal(t, 1, sweep(t, m), "%s: a minute past", label)
		nudged++
		require.Equal(t, nudged, f.nudges("ana"), label)
		ok(t, f.adm("ana", "POST", "/pacts/"+id+"/close", nil)) // under the open-pact limit
	}
}
