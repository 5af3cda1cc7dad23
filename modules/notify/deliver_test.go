package notify_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

const envSlack = "https://hooks.slack.com/services/T0/B0/env"

func TestDeliveryCarriesTheRowTextIDsKeyAndTaskLink(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	task := w.task
	slack := &recorder{}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack},
		SlackWebhookURL: envSlack, AdminUIURL: "https://admin.example.com/"})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Deferred, ProjectID: "web", TaskID: task, AgentID: "code-web",
		Title: "Deploy the site", Detail: "needs a person\nsecond line"})

	n, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	got := slack.deliveries()
	require.Len(t, got, 1)
	st := state(t, d, id)
	require.NotNil(t, st.SentAt)
	require.Nil(t, st.LastError)
	require.Equal(t, 1, st.Attempts)
	require.Equal(t, envSlack, got[0].Dest.URL)
	msg := got[0].N
	require.Equal(t, st.Key, msg.IdempotencyKey)
	require.Equal(t, "deferred", msg.Kind)
	require.Equal(t, "Deploy the site", msg.Title)
	require.Equal(t, "needs a person", msg.Detail)
	require.Equal(t, []string{"default", "web", task, "code-web"}, []string{msg.OrgID, msg.ProjectID, msg.TaskID, msg.AgentID})
	require.Equal(t, []notifier.Link{{Label: "Open task", URL: "https://admin.example.com/tasks/" + task}}, msg.Links)
	require.WithinDuration(t, time.Now(), msg.CreatedAt, time.Minute)

	n, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a sent row is never sent again")
	require.Len(t, slack.deliveries(), 1)
}

func TestAStructuredBriefIsParsedAndAPlainOneIsNot(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	task := w.task
	slack := &recorder{}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack},
		SlackWebhookURL: envSlack, AdminUIURL: "https://admin.example.com"})
	enqueue(t, d, outbox.Notification{Kind: outbox.Brief, ProjectID: "web", Title: "Daily brief",
		Detail: `{"greeting":"Good morning","sections":[{"title":"Done","items":[{"text":"R3 shipped","task_id":"` + task +
			`"},{"text":"bad id","task_id":"nope"}]}]}`})
	enqueue(t, d, outbox.Notification{Kind: outbox.Brief, ProjectID: "web", Title: "Daily brief", Detail: "Plain text brief\nline two"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	got := slack.deliveries()
	require.Len(t, got, 2)

	b := got[0].N.Brief
	require.NotNil(t, b)
	require.Equal(t, "Good morning", b.Greeting)
	require.Equal(t, []notifier.BriefSection{{Title: "Done", Items: []notifier.BriefItem{
		{Text: "R3 shipped", TaskID: task, URL: "https://admin.example.com/tasks/" + task},
		{Text: "bad id"},
	}}}, b.Sections)
	require.Equal(t, "Good morning\nDone\n• R3 shipped\n• bad id", got[0].N.Detail)
	require.Contains(t, got[0].N.Links, notifier.Link{Label: "Open the board", URL: "https://admin.example.com/tasks"})

	require.Nil(t, got[1].N.Brief)
	require.Equal(t, "Plain text brief\nline two", got[1].N.Detail)
}

func TestARetryWaitsThirtySecondsDoublingThenSucceeds(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{fail: 2, err: errs.E(errs.Unavailable, "slack answered 503: try later")}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Question, ProjectID: "web", Title: "Which colour?"})

	for attempt, wait := range []float64{30, 60} {
		n, err := svc.DeliverDue(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		st := state(t, d, id)
		require.Equal(t, attempt+1, st.Attempts)
		require.Nil(t, st.SentAt)
		require.Nil(t, st.DeadAt)
		require.Contains(t, *st.LastError, "Slack webhook: unavailable: slack answered 503: try later")
		require.InDelta(t, wait, st.RetryIn, 2, "attempt %d", attempt+1)

		n, err = svc.DeliverDue(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "the backoff is respected")
		makeDue(t, d)
	}
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	st := state(t, d, id)
	require.NotNil(t, st.SentAt)
	require.Nil(t, st.LastError)
	require.Equal(t, 3, st.Attempts)
	require.Len(t, slack.deliveries(), 1)
}

func TestEightFailedAttemptsMakeARowDeadWithItsLastError(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{fail: 1000, err: errs.E(errs.Unavailable, "slack answered 500: boom")}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})

	for i := 1; i <= 8; i++ {
		n, err := svc.DeliverDue(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "attempt %d", i)
		st := state(t, d, id)
		require.Equal(t, i, st.Attempts)
		if i < 8 {
			require.Nil(t, st.DeadAt)
			require.InDelta(t, float64(int(30)<<(i-1)), st.RetryIn, 2, "wait after attempt %d", i)
		}
		makeDue(t, d)
	}
	st := state(t, d, id)
	require.NotNil(t, st.DeadAt)
	require.Nil(t, st.SentAt)
	require.Equal(t, "Slack webhook: unavailable: slack answered 500: boom", *st.LastError)
	n, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a dead row is never tried again")
	require.Equal(t, 8, slack.calls)
}

func TestAPermanentRefusalKillsTheRowAtOnce(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{fail: 1, err: errs.E(errs.InvalidRequest, "slack answered 404: no_service")}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	st := state(t, d, id)
	require.NotNil(t, st.DeadAt)
	require.Equal(t, 1, st.Attempts)
	require.Equal(t, "Slack webhook: invalid_request: slack answered 404: no_service", *st.LastError)
}

func TestAnOrganizationWithoutDestinationIsSetAsideForGood(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "rocket", Title: "to acme"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	st := state(t, d, id)
	require.NotNil(t, st.DeadAt)
	require.Equal(t, notify.NoDestination, *st.LastError)

	_, err = d.ExecContext(ctx, `UPDATE orgs SET slack_webhook_url = 'https://hooks.slack.com/services/T/B/acme' WHERE id = ?`, acmeOf(t, d))
	require.NoError(t, err)
	makeDue(t, d)
	n, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Empty(t, slack.deliveries(), "the env webhook is the default organization's only, and a set-aside row stays aside")
}

func TestEachOrganizationGoesToItsOwnWebhookAndItsOwnBeatsTheEnvironment(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	_, err := d.ExecContext(ctx, `UPDATE orgs SET slack_webhook_url = 'https://hooks.slack.com/services/T/B/acme' WHERE id = ?`, acmeOf(t, d))
	require.NoError(t, err)
	enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "one"})
	enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "rocket", Title: "two"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `UPDATE orgs SET slack_webhook_url = 'https://hooks.slack.com/services/T/B/own' WHERE id = 'default'`)
	require.NoError(t, err)
	enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "three"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)

	var where []string
	for _, g := range slack.deliveries() {
		where = append(where, g.N.Title+" → "+g.Dest.URL)
	}
	require.Equal(t, []string{
		"one → " + envSlack,
		"two → https://hooks.slack.com/services/T/B/acme",
		"three → https://hooks.slack.com/services/T/B/own",
	}, where)
}

func TestAMissingNotifierPluginIsRetriedWithAClearError(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{}, SlackWebhookURL: envSlack})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	st := state(t, d, id)
	require.Nil(t, st.DeadAt)
	require.Equal(t, `Slack webhook: unavailable: no plugin named "slack" in PACT_PLUGINS`, *st.LastError)

	none := notify.NewService(d, nil, &notify.Options{SlackWebhookURL: envSlack})
	makeDue(t, d)
	_, err = none.DeliverDue(ctx)
	require.NoError(t, err)
	require.Contains(t, *state(t, d, id).LastError, "no notifier plugins run on this board")
}

func TestSecretsInErrorsAreNotKept(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{fail: 1, err: errs.E(errs.Unavailable, `Post "`+envSlack+`": dial tcp: timeout`)}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Equal(t, `Slack webhook: unavailable: Post "<destination URL>": dial tcp: timeout`, *state(t, d, id).LastError)
}

// stopper is a notifier whose deliveries stop their worker: it cancels the
// context its caller runs under, as a board shutting down would, and never
// answers.
type stopper struct{ stop context.CancelFunc }

func (s *stopper) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "stopper", Version: "1"}, nil
}

func (s *stopper) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return &d, nil
}

func (s *stopper) Deliver(ctx context.Context, _ notifier.Destination, _ notifier.Notification) (*notifier.Receipt, error) {
	s.stop()
	return nil, ctx.Err()
}

// expireLeases ends every lease on a pending row, as time passing would.
func expireLeases(t testing.TB, d *db.DB) {
	t.Helper()
	_, err := d.ExecContext(context.Background(), `UPDATE notifications SET lease_expires_at = now()
		WHERE lease_expires_at IS NOT NULL AND sent_at IS NULL AND dead_at IS NULL`)
	require.NoError(t, err)
}

// stopDuringDelivery runs one delivery pass with opts whose worker stops
// while delivering, and checks it left the row in hand, unsettled.
func stopDuringDelivery(t *testing.T, d *db.DB, opts notify.Options, id int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts.Notifiers = plugins{"slack": &stopper{stop: cancel}}
	_, err := notify.NewService(d, nil, &opts).DeliverDue(ctx)
	require.ErrorIs(t, err, context.Canceled)
	st := state(t, d, id)
	require.Nil(t, st.SentAt)
	require.Nil(t, st.DeadAt)
	require.NotNil(t, st.LeaseOwner, "the stopped worker's lease is left to expire")
}

// A row whose last attempt never finished (its worker stopped) is set
// aside as dead by the worker that takes it next, without another
// delivery; its error says so, and keeps the error of the attempt before
// when there was one.
func TestARowWhoseLastAttemptNeverFinishedIsDeadWithTheErrorBeforeIt(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{fail: 1, err: errs.E(errs.Unavailable, "slack answered 503: try later")}
	opts := notify.Options{SlackWebhookURL: envSlack, MaxAttempts: 2, Notifiers: plugins{"slack": slack}}
	svc := notify.NewService(d, nil, &opts)
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	makeDue(t, d)
	stopDuringDelivery(t, d, opts, id) // the last attempt
	require.Equal(t, 2, state(t, d, id).Attempts)
	expireLeases(t, d)

	n, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	st := state(t, d, id)
	require.NotNil(t, st.DeadAt)
	require.Nil(t, st.SentAt)
	require.Equal(t, "the last attempt did not finish (its worker stopped); before that: "+
		"Slack webhook: unavailable: slack answered 503: try later", *st.LastError)
	require.Equal(t, 1, slack.calls, "a dead row is not delivered again")

	// One attempt only, stopped: there is no error before it.
	one := opts
	one.MaxAttempts = 1
	id = enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "again"})
	stopDuringDelivery(t, d, one, id)
	expireLeases(t, d)
	_, err = notify.NewService(d, nil, &one).DeliverDue(ctx)
	require.NoError(t, err)
	st = state(t, d, id)
	require.NotNil(t, st.DeadAt)
	require.Equal(t, "the last attempt did not finish (its worker stopped)", *st.LastError)
	require.Equal(t, 1, slack.calls)
}

// leaseWatch is a notifier that notes, as each of its deliveries begins,
// when the lease on the row it delivers expires.
type leaseWatch struct {
	d    *db.DB
	mu   sync.Mutex
	seen []time.Time
}

func (l *leaseWatch) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "lease-watch", Version: "1"}, nil
}

func (l *leaseWatch) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return &d, nil
}

func (l *leaseWatch) Deliver(ctx context.Context, _ notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	var at time.Time
	if err := l.d.NewRaw(`SELECT lease_expires_at FROM notifications WHERE idempotency_key = ?`, n.IdempotencyKey).
		Scan(ctx, &at); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, at)
	return &notifier.Receipt{Status: 200}, nil
}

// Each destination after the first starts with a full lease of its own: the
// lease is renewed before it, so a row with several slow destinations is
// not taken over while still in hand.
func TestEachFurtherDestinationGetsItsOwnLease(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	watch := &leaseWatch{d: d}
	svc := notify.NewService(d, nil, &notify.Options{SlackWebhookURL: envSlack, Lease: time.Hour,
		Notifiers: plugins{"slack": watch, "webhook": watch}})
	_, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: "https://example.com/hook"})
	require.NoError(t, err)
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})

	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.NotNil(t, state(t, d, id).SentAt)
	require.Len(t, watch.seen, 2)
	require.True(t, watch.seen[1].After(watch.seen[0]), "renewed before the second destination: %v", watch.seen)
	require.WithinDuration(t, time.Now().Add(time.Hour), watch.seen[1], time.Minute)
}

// outcome is a notification's record of one destination
// (notification_deliveries).
type outcome struct {
	Destination string  `bun:"destination"`
	Sent        bool    `bun:"sent"`
	Status      *int    `bun:"status"`
	Detail      *string `bun:"detail"`
}

func outcomes(t testing.TB, d *db.DB, id int64) []outcome {
	t.Helper()
	got := []outcome{}
	require.NoError(t, d.NewRaw(`SELECT destination, sent_at IS NOT NULL AS sent, status, detail FROM notification_deliveries
		WHERE notification_id = ? ORDER BY destination`, id).Scan(context.Background(), &got))
	return got
}

// A destination that refused a notification for good is recorded with why,
// and is not tried again while another destination is retried; one that
// took it is recorded with the receiver's status.
func TestADestinationThatRefusedForGoodIsNotTriedAgainWhileAnotherIsRetried(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{fail: 1000, err: errs.E(errs.InvalidRequest, "slack answered 404: no_service")}
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
	require.Nil(t, st.DeadAt, "the webhook's outage is worth retrying")
	makeDue(t, d)
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)

	st = state(t, d, id)
	require.NotNil(t, st.SentAt)
	refusal := "Slack webhook: invalid_request: slack answered 404: no_service"
	require.Equal(t, refusal, *st.LastError, "what the refusing destination said is kept")
	require.Equal(t, 1, slack.calls, "Slack refused it for good and is not asked again")
	require.Len(t, hook.deliveries(), 1)
	ok := 200
	require.Equal(t, []outcome{
		{Destination: fmt.Sprintf("d%d", added.ID), Sent: true, Status: &ok},
		{Destination: "slack", Detail: &refusal},
	}, outcomes(t, d, id))
}

// A notification with a single destination keeps no record per
// destination, sent or refused: its own row says it all.
func TestANotificationWithOneDestinationKeepsNoOutcomePerDestination(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{fail: 1, err: errs.E(errs.InvalidRequest, "slack answered 404: no_service")}
	svc := notify.NewService(d, nil, &notify.Options{SlackWebhookURL: envSlack, Notifiers: plugins{"slack": slack}})
	refused := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "one"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	sent := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "two"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)

	require.NotNil(t, state(t, d, refused).DeadAt)
	require.NotNil(t, state(t, d, sent).SentAt)
	require.Empty(t, outcomes(t, d, refused))
	require.Empty(t, outcomes(t, d, sent))
}

// silent is a notifier that delivers and answers with no receipt.
type silent struct{ calls int }

func (s *silent) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "silent", Version: "1"}, nil
}

func (s *silent) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return &d, nil
}

func (s *silent) Deliver(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error) {
	s.calls++
	return nil, nil
}

// A notifier that delivers without a receipt has delivered: the row is
// sent, and a destination among several is recorded sent with no status.
func TestANotifierThatAnswersWithoutAReceiptHasDelivered(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	quiet := &silent{}
	svc := notify.NewService(d, nil, &notify.Options{SlackWebhookURL: envSlack, Notifiers: plugins{"slack": quiet, "webhook": quiet}})
	alone := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "one"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	st := state(t, d, alone)
	require.NotNil(t, st.SentAt)
	require.Nil(t, st.LastError)

	added, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: "https://example.com/hook"})
	require.NoError(t, err)
	several := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "two"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.NotNil(t, state(t, d, several).SentAt)
	require.Equal(t, []outcome{{Destination: fmt.Sprintf("d%d", added.ID), Sent: true}, {Destination: "slack", Sent: true}},
		outcomes(t, d, several))
	require.Equal(t, 3, quiet.calls)
}
