package notify_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
)

func TestAnOwnerAddsADestinationWhoseSecretIsShownOnce(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	rcv := newReceiver(t)
	svc := notify.NewService(d, ledger.New(nil), &notify.Options{SlackWebhookURL: envSlack,
		Notifiers: plugins{"webhook": &poster{client: rcv.Client()}, "slack": &recorder{}}})

	added, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: rcv.URL + "/hooks/abcdef123456",
		Options: map[string]string{"format": "full"}})
	require.NoError(t, err)
	require.Regexp(t, `^whsec_[A-Za-z0-9+/=]{32}$`, added.Secret, "PrepareDestination generated it")
	require.True(t, added.HasSecret)
	require.Equal(t, "default", added.OrgID)
	require.Equal(t, rcv.URL+"/…3456", added.URLHint)

	list, err := svc.ListDestinations(ctx, "vic")
	require.NoError(t, err)
	require.Equal(t, "environment", list.SlackSource)
	require.Len(t, list.Items, 1)
	got := list.Items[0]
	require.Equal(t, added.ID, got.ID)
	require.Equal(t, "webhook", got.Notifier)
	require.Equal(t, map[string]string{"format": "full"}, got.Options)
	require.True(t, got.HasSecret)
	require.Equal(t, "ana", got.CreatedBy)
	require.Nil(t, got.DisabledAt)

	// Deliveries reach it with the secret and options the plugin prepared.
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	_, byPath, _ := rcv.counts()
	require.Equal(t, 1, byPath["/hooks/abcdef123456"])
	require.NotNil(t, state(t, d, id).SentAt)

	// The log names the notifier and the hint, never the URL or the secret.
	var payloads []string
	require.NoError(t, d.NewRaw(`SELECT p.content::text FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.destination.add' AND e.outcome = 'ok'`).Scan(ctx, &payloads))
	require.Len(t, payloads, 1)
	require.Contains(t, payloads[0], `"notifier": "webhook"`)
	require.NotContains(t, payloads[0], "abcdef123456")
	require.NotContains(t, payloads[0], added.Secret)

	_, err = d.ExecContext(ctx, `UPDATE orgs SET slack_webhook_url = 'https://hooks.slack.com/services/T/B/own' WHERE id = 'default'`)
	require.NoError(t, err)
	list, err = svc.ListDestinations(ctx, "ana")
	require.NoError(t, err)
	require.Equal(t, "org", list.SlackSource)
	list, err = svc.ListDestinations(ctx, "bo")
	require.NoError(t, err)
	require.Equal(t, "", list.SlackSource)
	require.Empty(t, list.Items, "acme sees only its own destinations")
}

func TestADisabledDestinationIsSentNothingMore(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	hook := &recorder{}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"webhook": hook}})
	added, err := svc.AddDestination(ctx, "bo", notify.DestinationInput{Notifier: "webhook", URL: "https://acme.example/hook", Secret: "whsec_given"})
	require.NoError(t, err)
	require.Equal(t, "whsec_given", added.Secret)
	enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "rocket", Title: "one"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Len(t, hook.deliveries(), 1)
	require.Equal(t, "whsec_given", hook.deliveries()[0].Dest.Secret)

	_, err = svc.DisableDestination(ctx, "ana", added.ID)
	require.Equal(t, errs.NotFound, errs.CodeOf(err), "another organization's destination")
	off, err := svc.DisableDestination(ctx, "bo", added.ID)
	require.NoError(t, err)
	require.NotNil(t, off.DisabledAt)
	require.Equal(t, "bo", *off.DisabledBy)
	again, err := svc.DisableDestination(ctx, "bo", added.ID)
	require.NoError(t, err)
	require.Equal(t, off.DisabledAt, again.DisabledAt, "disabling twice changes nothing")

	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "rocket", Title: "two"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Len(t, hook.deliveries(), 1)
	require.Equal(t, notify.NoDestination, *state(t, d, id).LastError)
	list, err := svc.ListDestinations(ctx, "bo")
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	require.NotNil(t, list.Items[0].DisabledAt)
}

func TestDestinationChangesAreRefusedWithClearCodes(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"webhook": &poster{}}})
	ok := notify.DestinationInput{Notifier: "webhook", URL: "https://example.com/hook"}
	for _, tt := range []struct {
		name string
		by   string
		in   notify.DestinationInput
		code errs.Code
	}{
		{"Viewer", "vic", ok, errs.Forbidden},
		{"Nobody", "", ok, errs.Forbidden},
		{"Stranger", "zed", ok, errs.Forbidden},
		{"UnknownPlugin", "ana", notify.DestinationInput{Notifier: "pager", URL: ok.URL}, errs.InvalidRequest},
		{"BadName", "ana", notify.DestinationInput{Notifier: "Web Hook", URL: ok.URL}, errs.InvalidRequest},
		{"RelativeURL", "ana", notify.DestinationInput{Notifier: "webhook", URL: "/hook"}, errs.InvalidRequest},
		{"PluginRefuses", "ana", notify.DestinationInput{Notifier: "webhook", URL: "ftp://example.com/x"}, errs.InvalidRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.AddDestination(ctx, tt.by, tt.in)
			require.Equal(t, tt.code, errs.CodeOf(err), "%v", err)
		})
	}
	_, err := svc.DisableDestination(ctx, "ana", 999)
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	_, err = svc.ListDestinations(ctx, "zed")
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))

	var refused []string
	require.NoError(t, d.NewRaw(`SELECT outcome FROM entries WHERE action LIKE 'admin.destination.%' ORDER BY id`).Scan(ctx, &refused))
	require.Equal(t, []string{"forbidden", "forbidden", "invalid_request", "invalid_request", "invalid_request",
		"invalid_request", "not_found"}, refused, "every refusal of a named person is logged")
	var n int
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM notify_destinations`).Scan(ctx, &n))
	require.Zero(t, n)
}
