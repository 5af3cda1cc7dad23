package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/console"
)

// listen opens GET /admin/api/live as person and returns its events as
// they come.
func listen(t *testing.T, b *board, person string) <-chan console.Event {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"/admin/api/live", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+b.AdminToken(person))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	lines := bufio.NewScanner(resp.Body)
	require.True(t, lines.Scan())
	require.Equal(t, ": live", lines.Text()) // subscribed
	out := make(chan console.Event, 16)
	go func() {
		defer resp.Body.Close()
		event := ""
		for lines.Scan() {
			line := lines.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev console.Event
				if json.Unmarshal([]byte(data), &ev) == nil && ev.Name() == event {
					out <- ev
				}
			}
		}
	}()
	return out
}

func enqueue(t *testing.T, b *board, n outbox.Notification) string {
	var id int64
	require.NoError(t, b.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		id, err = outbox.Enqueue(ctx, tx, n)
		return err
	}))
	return strconv.FormatInt(id, 10)
}

// A person's live stream carries a notice of every kind (the population:
// outbox.Kinds) addressed to them, under the event name of its kind
// (needs-you when it asks them to act), and nothing addressed to anyone
// else: not a notice for another person of their organization, not one of
// another organization.
func TestLiveStreamCarriesEachKindToTheAddressedPersonOnly(t *testing.T) {
	b := newBoard(t, nil)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Kernel.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	b.Org("acme", "ann")
	b.Person("ann", "vera", identity.Viewer)
	b.Project("ann", "rocket", false)
	b.Org("beta", "bob")
	b.Project("bob", "boat", false)
	ann, vera, bob := listen(t, b, "ann"), listen(t, b, "vera"), listen(t, b, "bob")

	// The listener may not LISTEN yet: enqueue until vera hears one.
	warm := map[string]bool{}
	deadline := time.After(15 * time.Second)
	for heard := false; !heard; {
		warm[enqueue(t, b, outbox.Notification{Kind: outbox.PactUnread, ProjectID: "rocket", HumanID: "vera", Title: "t"})] = true
		select {
		case ev := <-vera:
			require.True(t, warm[ev.ID])
			heard = true
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatal("no live event for vera")
		}
	}
	drain := func(c <-chan console.Event) {
		for {
			select {
			case ev := <-c:
				require.True(t, warm[ev.ID], "an event before the test's: %v", ev)
			case <-time.After(300 * time.Millisecond):
				return
			}
		}
	}
	drain(vera)
	drain(ann)

	next := func(c <-chan console.Event, who string) console.Event {
		t.Helper()
		select {
		case ev := <-c:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatalf("no live event for %s", who)
		}
		return console.Event{}
	}
	for _, k := range outbox.Kinds() {
		forVera := enqueue(t, b, outbox.Notification{Kind: k, ProjectID: "rocket", HumanID: "vera", Title: "t"})
		forBob := enqueue(t, b, outbox.Notification{Kind: k, ProjectID: "boat", HumanID: "bob", Title: "t"})
		require.Equal(t, console.Event{Kind: string(k), ID: forVera}, next(vera, "vera"), "kind %s", k)
		require.Equal(t, console.Event{Kind: string(k), ID: forBob}, next(bob, "bob"), "kind %s", k)
		// ann is the owner of acme: the notices addressed to acme's owners
		// reach her, and only those.
		forOwners := enqueue(t, b, outbox.Notification{Kind: k, ProjectID: "rocket", Title: "t"})
		var people []string
		require.NoError(t, b.DB.NewRaw(`SELECT human_id FROM inbox WHERE notification_id = ?`, forOwners).
			Scan(context.Background(), &people))
		if slices.Contains(people, "ann") {
			require.Equal(t, console.Event{Kind: string(k), ID: forOwners}, next(ann, "ann"), "kind %s", k)
		}
		if slices.Contains(people, "vera") {
			require.Equal(t, console.Event{Kind: string(k), ID: forOwners}, next(vera, "vera"), "kind %s", k)
		}
	}
	for who, c := range map[string]<-chan console.Event{"ann": ann, "vera": vera, "bob": bob} {
		select {
		case ev := <-c:
			t.Fatalf("%s heard %v, which is not addressed to them", who, ev)
		case <-time.After(300 * time.Millisecond):
		}
	}
}
