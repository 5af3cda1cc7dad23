package events

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

// TestStopsAgentAndStopsPersonSayWhomAStopConcerns proves the rule of
// Event.KindStop: a stop naming an agent (or a person) concerns that one
// alone, a stop naming no one concerns everyone of its organization, or of
// the whole board when it names no organization either, and an event of
// another kind stops no one.
func TestStopsAgentAndStopsPersonSayWhomAStopConcerns(t *testing.T) {
	for _, c := range []struct {
		name          string
		ev            Event
		agent, person bool // StopsAgent("o1", "a1"), StopsPerson("o1", "h1")
	}{
		{"another kind naming them", Event{Kind: KindMessage, OrgID: "o1", AgentID: "a1", HumanID: "h1"}, false, false},
		{"the whole board", Event{Kind: KindStop}, true, true},
		{"their organization", Event{Kind: KindStop, OrgID: "o1"}, true, true},
		{"another organization", Event{Kind: KindStop, OrgID: "o2"}, false, false},
		{"the agent", Event{Kind: KindStop, OrgID: "o1", AgentID: "a1"}, true, false},
		{"another agent", Event{Kind: KindStop, OrgID: "o1", AgentID: "a2"}, false, false},
		{"the person", Event{Kind: KindStop, OrgID: "o1", HumanID: "h1"}, false, true},
		{"another person", Event{Kind: KindStop, OrgID: "o1", HumanID: "h2"}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.agent, c.ev.StopsAgent("o1", "a1"), "StopsAgent")
			require.Equal(t, c.person, c.ev.StopsPerson("o1", "h1"), "StopsPerson")
		})
	}
}

// guardedWait prepares a wait of agent code-web on h, woken by messages to
// it and guarded by the stops that concern it; changed answers whether its
// standing changed, counting its calls.
func guardedWait(h *Hub, p *probe, calls *atomic.Int32, changed func() (bool, error)) *Wait {
	w := h.NewWait(func(e Event) bool { return e.Kind == KindMessage && e.AgentID == "code-web" },
		10*time.Second, p.check, p.end)
	stops := h.Subscribe(func(e Event) bool { return e.StopsAgent("default", "code-web") })
	w.Guard(stops, func(context.Context) (bool, error) {
		calls.Add(1)
		return changed()
	})
	return w
}

// TestAGuardedWaitGoesOnAfterAStopThatChangedNothing proves that a stop
// after which the waiter's standing is unchanged neither ends the wait nor
// makes it check the database: the wait goes on until a wake of its own
// finds something. A stop concerning another agent does not reach it.
func TestAGuardedWaitGoesOnAfterAStopThatChangedNothing(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	p := &probe{}
	var calls atomic.Int32
	w := guardedWait(h, p, &calls, func() (bool, error) { return false, nil })
	done := runAsync(context.Background(), w)
	require.Eventually(t, func() bool { return p.checks.Load() == 1 }, 2*time.Second, time.Millisecond)

	publish(t, d, Event{Kind: KindStop, OrgID: "default", AgentID: "code-api"})
	publish(t, d, Event{Kind: KindStop, OrgID: "default", AgentID: "code-web"})
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 2*time.Second, time.Millisecond)
	p.ready.Store(1)
	publish(t, d, Event{Kind: KindMessage, OrgID: "default", AgentID: "code-web"})
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the message did not end the wait")
	}
	require.EqualValues(t, 2, p.checks.Load(), "checked first and after the message, not after the stop")
	require.EqualValues(t, 1, calls.Load(), "the standing was read once: for code-web's stop only")
	require.EqualValues(t, 1, p.ends.Load())
	require.Zero(t, h.Len(), "the wait's subscription and its stops are closed")
}

// TestAGuardedWaitEndsAtOnceWhenAStopChangedTheStanding proves that a stop
// after which the waiter's standing changed ends the wait without another
// check, with no error, and that an error reading the standing ends it
// with that error.
func TestAGuardedWaitEndsAtOnceWhenAStopChangedTheStanding(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	boom := errors.New("database down")
	for _, c := range []struct {
		name    string
		changed func() (bool, error)
		want    error
	}{
		{"changed", func() (bool, error) { return true, nil }, nil},
		{"unreadable", func() (bool, error) { return false, boom }, boom},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &probe{}
			var calls atomic.Int32
			done := runAsync(context.Background(), guardedWait(h, p, &calls, c.changed))
			require.Eventually(t, func() bool { return p.checks.Load() == 1 }, 2*time.Second, time.Millisecond)
			publish(t, d, Event{Kind: KindStop, OrgID: "default", AgentID: "code-web"})
			select {
			case err := <-done:
				require.Equal(t, c.want, err)
			case <-time.After(5 * time.Second):
				t.Fatal("the stop did not end the wait")
			}
			require.EqualValues(t, 1, p.checks.Load(), "no check after the stop")
			require.EqualValues(t, 1, calls.Load())
			require.EqualValues(t, 1, p.ends.Load())
			require.Zero(t, h.Len(), "the wait's subscription and its stops are closed")
		})
	}
}
