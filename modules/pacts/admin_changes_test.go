package pacts_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// "What the agents changed this week" lists the agents' writes of the last
// seven days from the log: not their reads, not their refused attempts,
// not people's writes.
func TestChangesListAgentWritesNotReads(t *testing.T) {
	c := &clock{at: time.Now()}
	f, _ := setupAt(t, c.now)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Done."})
	require.NoError(t, err)
	_, err = f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	_, err = f.as("bram", pacts.ToolList, map[string]any{})
	require.NoError(t, err)
	_, err = f.as("bram", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "key": "@wanda", "body": "x"})
	require.Error(t, err)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@bram/pause", nil))

	entries := ok(t, f.adm("vic", "GET", "/pacts/changes", nil))["changes"].([]any)
	var actions []string
	for _, e := range entries {
		r := e.(map[string]any)["entry"].(map[string]any)
		require.Regexp(t, `^agent:`, r["actor"])
		require.Equal(t, "ok", r["outcome"])
		actions = append(actions, r["action"].(string))
	}
	require.Equal(t, []string{pacts.ToolPost, pacts.ToolJoin, pacts.ToolCreate}, actions, "newest first")

	page := ok(t, f.adm("vic", "GET", "/pacts/changes?limit=2", nil))
	require.Len(t, page["changes"], 2)
	require.NotZero(t, page["next_before"])

	c.add(8 * 24 * time.Hour)
	require.Empty(t, ok(t, f.adm("vic", "GET", "/pacts/changes", nil))["changes"], "only the last seven days")
}

// Several board processes sweeping at once nudge an owner once.
func TestConcurrentSweepsNudgeOnce(t *testing.T) {
	c := &clock{at: time.Now()}
	f, m := setupAt(t, c.now)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "anyone?"})
	require.NoError(t, err)
	c.add(time.Hour)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := m.SweepNudges(context.Background())
			require.NoError(t, err)
		}()
	}
	wg.Wait()
	require.Equal(t, 1, f.nudges("ana"))
}
