package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

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
			if data, ok := strings.CutPrefix(line, "data: "); ok && event == "needs-you" {
				var ev console.Event
				if json.Unmarshal([]byte(data), &ev) == nil {
					out <- ev
				}
			}
		}
	}()
	return out
}

func enqueue(t *testing.T, b *board, kind outbox.Kind, project string) string {
	var id int64
	require.NoError(t, b.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		id, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: kind, ProjectID: project, Title: "t"})
		return err
	}))
	return strconv.FormatInt(id, 10)
}

// A person's live stream carries what needs people of their organization
// and nothing of another's.
func TestLiveStreamShowsOnlyTheOrganization(t *testing.T) {
	b := newBoard(t, nil)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Kernel.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	b.Org("acme", "ann")
	b.Project("ann", "rocket", false)
	b.Org("beta", "bob")
	b.Project("bob", "boat", false)
	ann, bob := listen(t, b, "ann"), listen(t, b, "bob")

	// The listener may not LISTEN yet: enqueue until ann hears one.
	var got console.Event
	ids := map[string]bool{}
	deadline := time.After(15 * time.Second)
	for got.ID == "" {
		ids[enqueue(t, b, outbox.ApprovalNeeded, "rocket")] = true
		select {
		case got = <-ann:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatal("no live event for ann")
		}
	}
	require.Equal(t, "approval_needed", got.Kind)
	require.True(t, ids[got.ID])

	enqueue(t, b, outbox.TaskClosed, "boat") // not a kind that needs anyone
	beta := enqueue(t, b, outbox.Question, "boat")
	select {
	case ev := <-bob:
		require.Equal(t, console.Event{Kind: "question", ID: beta}, ev, "bob saw acme's notification")
	case <-time.After(10 * time.Second):
		t.Fatal("no live event for bob")
	}
	select {
	case ev := <-ann:
		require.True(t, ids[ev.ID], "ann saw beta's notification %v", ev)
	case <-time.After(300 * time.Millisecond):
	}
}
