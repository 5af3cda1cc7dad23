package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
