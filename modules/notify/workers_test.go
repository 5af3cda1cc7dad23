package notify_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

func TestAWorkerWakesOnTheCommitAndDelivers(t *testing.T) {
	w := newWorld(t)
	d := w.DB
	task := w.task
	rcv := newReceiver(t)
	// A tick of an hour: only the LISTEN wake can deliver within the test.
	startProcess(w, map[string]string{"PACT_SLACK_WEBHOOK_URL": rcv.URL + "/slack"},
		notify.Options{Notifiers: plugins{"slack": &poster{client: rcv.Client()}}, Tick: time.Hour})
	time.Sleep(200 * time.Millisecond) // let the workers go idle first

	id := enqueue(t, d, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: task, Title: "Deploy", Detail: "deploy.prod"})
	select {
	case key := <-rcv.arrive:
		require.Equal(t, state(t, d, id).Key, key)
	case <-time.After(10 * time.Second):
		t.Fatal("the notification was not delivered")
	}
	eventually(t, 5*time.Second, func() bool { return state(t, d, id).SentAt != nil }, "row %d marked sent", id)
}

func TestTwoProcessesWithTwoWorkersEachDeliverEveryRowOnce(t *testing.T) {
	w := newWorld(t)
	d := w.DB
	rcv := newReceiver(t)
	env := map[string]string{"PACT_SLACK_WEBHOOK_URL": rcv.URL + "/slack"}
	opts := notify.Options{Notifiers: plugins{"slack": &poster{client: rcv.Client()}}, Workers: 2}
	startProcess(w, env, opts)
	startProcess(w, env, opts)

	const rows = 300
	var wg sync.WaitGroup
	for g := range 6 { // six board transactions at once, fifty events each
		wg.Go(func() {
			require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
				for i := range rows / 6 {
					if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Message, ProjectID: "web",
						Title: fmt.Sprintf("message %d.%d", g, i)}); err != nil {
						return err
					}
				}
				return nil
			}))
		})
	}
	wg.Wait()
	eventually(t, 60*time.Second, func() bool {
		var sent int
		require.NoError(t, d.NewRaw(`SELECT count(*) FROM notifications WHERE sent_at IS NOT NULL`).Scan(context.Background(), &sent))
		return sent == rows
	}, "all %d rows sent", rows)
	byKey, _, total := rcv.counts()
	require.Equal(t, rows, total)
	require.Len(t, byKey, rows)
	for key, n := range byKey {
		require.Equal(t, 1, n, "key %s delivered %d times", key, n)
	}
	var owners int
	require.NoError(t, d.NewRaw(`SELECT count(DISTINCT lease_owner) FROM notifications`).Scan(context.Background(), &owners))
	t.Logf("%d rows delivered by %d workers", rows, owners)
}

// hanging is a notifier whose deliveries hang until released (or, when it
// honours ctx, until the worker's context ends), as a plugin call in flight
// when its board process dies.
type hanging struct {
	entered chan string // the key of each delivery that started
	release chan error  // what a hung delivery finally returns
	honour  bool        // return when ctx ends
}

func (h *hanging) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "hanging"}, nil
}

func (h *hanging) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return &d, nil
}

func (h *hanging) Deliver(ctx context.Context, _ notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	h.entered <- n.IdempotencyKey
	done := ctx.Done()
	if !h.honour {
		done = nil
	}
	select {
	case err := <-h.release:
		return nil, err
	case <-done:
		return nil, ctx.Err()
	}
}

func TestAWorkerKilledMidDeliveryLeavesTheRowToAnotherWithTheSameKey(t *testing.T) {
	w := newWorld(t)
	d := w.DB
	env := map[string]string{"PACT_SLACK_WEBHOOK_URL": envSlack}
	stuck := &hanging{entered: make(chan string, 1), release: make(chan error), honour: true}
	lease := 700 * time.Millisecond
	a := startProcess(w, env, notify.Options{Notifiers: plugins{"slack": stuck}, Workers: 1, Lease: lease})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Question, ProjectID: "web", Title: "Which colour?"})
	var first string
	select {
	case first = <-stuck.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("process A never started the delivery")
	}
	a.Stop() // killed mid-delivery: nothing settles the row
	claimedBy := state(t, d, id).LeaseOwner
	require.NotNil(t, claimedBy)
	require.Nil(t, state(t, d, id).SentAt)

	slack := &recorder{}
	started := time.Now()
	b := startProcess(w, env, notify.Options{Notifiers: plugins{"slack": slack}, Workers: 1, Lease: lease})
	eventually(t, 10*time.Second, func() bool { return len(slack.deliveries()) == 1 }, "process B delivers the row")
	require.GreaterOrEqual(t, time.Since(started), lease/2, "B waited for A's lease to expire")
	second := slack.deliveries()[0].N.IdempotencyKey
	require.Equal(t, first, second, "the repeat carries the same key, so the receiver drops it")
	eventually(t, 5*time.Second, func() bool { return state(t, d, id).SentAt != nil }, "row sent")
	st := state(t, d, id)
	require.Equal(t, 2, st.Attempts)
	require.NotEqual(t, *claimedBy, *st.LeaseOwner)
	b.Stop()
	require.Len(t, slack.deliveries(), 1)
}

func TestAHungWorkerThatLostItsLeaseCannotUndoTheDelivery(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	stuck := &hanging{entered: make(chan string, 1), release: make(chan error)}
	opts := notify.Options{SlackWebhookURL: envSlack, Lease: 300 * time.Millisecond}
	opts.Notifiers = plugins{"slack": stuck}
	a := notify.NewService(d, nil, &opts)
	slack := &recorder{}
	opts.Notifiers = plugins{"slack": slack}
	b := notify.NewService(d, nil, &opts)
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})

	aDone := make(chan error, 1)
	go func() { _, err := a.DeliverDue(ctx); aDone <- err }()
	<-stuck.entered
	n, err := b.DeliverDue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "the row is leased to A")
	time.Sleep(400 * time.Millisecond)
	n, err = b.DeliverDue(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "A's lease expired")
	stuck.release <- errs.E(errs.Unavailable, "timed out at last")
	require.NoError(t, <-aDone)

	st := state(t, d, id)
	require.NotNil(t, st.SentAt, "A's late failure changes nothing")
	require.Nil(t, st.LastError)
	require.Len(t, slack.deliveries(), 1)
}

func TestSeveralDestinationsRetryOnlyTheOneThatFailed(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{}
	hook := &recorder{fail: 1, err: errs.E(errs.Unavailable, "receiver answered 503")}
	svc := notify.NewService(d, nil, &notify.Options{SlackWebhookURL: envSlack,
		Notifiers: plugins{"slack": slack, "webhook": hook}})
	added, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: "https://example.com/hook"})
	require.NoError(t, err)
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})

	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	st := state(t, d, id)
	require.Nil(t, st.SentAt)
	require.Equal(t, fmt.Sprintf("destination %d (webhook): unavailable: receiver answered 503", added.ID), *st.LastError)
	require.Len(t, slack.deliveries(), 1)

	makeDue(t, d)
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	st = state(t, d, id)
	require.NotNil(t, st.SentAt)
	require.Nil(t, st.LastError)
	require.Len(t, slack.deliveries(), 1, "Slack already had it and is not sent it again")
	got := hook.deliveries()
	require.Len(t, got, 1)
	require.Equal(t, st.Key, got[0].N.IdempotencyKey)
	require.Equal(t, "https://example.com/hook", got[0].Dest.URL)
}
