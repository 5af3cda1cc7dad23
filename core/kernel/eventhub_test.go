package kernel_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/pgtest"
)

// The event hub runs as the kernel's worker, for as long as the kernel
// runs: an event published on the database reaches a subscriber; with no
// hub, nothing is added and a kernel with nothing else to run returns.
func TestTheEventHubRunsAsAWorker(t *testing.T) {
	d := pgtest.New(t)
	hub := events.NewHub(d.ListenConfig(), nil)
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(kernel.EventHub(hub)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = k.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	sub := hub.Subscribe(func(ev events.Event) bool { return ev.Kind == events.KindTask && ev.OrgID == "default" })
	defer sub.Close()
	// The hub listens once it runs: publish until an event gets through.
	require.Eventually(t, func() bool {
		require.NoError(t, events.Publish(context.Background(), d, events.Event{Kind: events.KindTask, OrgID: "default"}))
		select {
		case <-sub.C():
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	}, 20*time.Second, 10*time.Millisecond, "the kernel runs the hub")

	none := kernel.New(kernel.Deps{})
	require.NoError(t, none.Register(kernel.EventHub(nil)))
	returned := make(chan error, 1)
	go func() { returned <- none.Run(context.Background()) }()
	select {
	case err := <-returned:
		require.NoError(t, err, "no hub, no worker: Run has nothing to run")
	case <-time.After(5 * time.Second):
		t.Fatal("a kernel with no hub still runs a worker")
	}
}
