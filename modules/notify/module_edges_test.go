package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
)

// A board's emails link to its console: the Admin UI's URL when the board
// has one, else the console under the board's public URL, and a console URL
// the module was given wins over both.
func TestAnEmailsConsoleLinkComesFromTheBoardsConfiguration(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, console, want string
		env                 map[string]string
	}{
		{"admin UI", "", "https://admin.example.com/settings",
			map[string]string{"PACT_ADMIN_UI_URL": "https://admin.example.com", "PACT_PUBLIC_URL": "https://board.example.com"}},
		{"public URL", "", "https://board.example.com/console/settings",
			map[string]string{"PACT_PUBLIC_URL": "https://board.example.com"}},
		{"given", "https://given.example.com/console", "https://given.example.com/console/settings",
			map[string]string{"PACT_ADMIN_UI_URL": "https://admin.example.com", "PACT_PUBLIC_URL": "https://board.example.com"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			w.Exec(`UPDATE humans SET email = id || '@example.com'`)
			_, err := notify.NewService(w.DB, nil, nil).SetEmailKinds(ctx, &identity.Person{ID: "ana", OrgID: "default"},
				[]string{string(outbox.Message)})
			require.NoError(t, err)
			mail := &recorder{}
			startProcess(w, c.env, notify.Options{Notifiers: plugins{"email": mail}, ConsoleURL: c.console})
			enqueue(t, w.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", HumanID: "ana", Title: "hello"})
			eventually(t, 10*time.Second, func() bool { return len(mail.deliveries()) > 0 }, "the email was not sent")
			got := mail.deliveries()[0]
			require.Len(t, got.N.Links, 2)
			require.Equal(t, c.want, got.N.Links[1].URL)
		})
	}
}

// The module counts its delivery attempts in the board's metrics registry
// when it is not given one of its own.
func TestTheModuleCountsDeliveriesInTheBoardsMetrics(t *testing.T) {
	m := metrics.New()
	mod := notify.New(notify.Options{Notifiers: plugins{"slack": &recorder{}}, SlackWebhookURL: envSlack})
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true, Metrics: m}, mod)
	w.Person("", "ana", identity.Owner)
	w.Project("ana", "web", false)
	enqueue(t, w.DB, outbox.Notification{Kind: outbox.Question, ProjectID: "web", Title: "Which colour?"})
	_, err := mod.Service().DeliverDue(context.Background())
	require.NoError(t, err)
	eventually(t, 5*time.Second, func() bool { return deliveries(t, m)["sent"] == 1 }, "the delivery was not counted")
}

// Each delivery worker has a name of its own, counted from one, so that a
// board's log says which of them failed and is being restarted. With the
// notifications table gone, every worker's first look fails.
func TestTheLogNamesEachDeliveryWorkerThatFails(t *testing.T) {
	_, logs := runLogged(t, notify.Options{Notifiers: plugins{"slack": &recorder{}}, Workers: 2}, func(w *kerneltest.World) {
		w.Exec(`ALTER TABLE notifications RENAME TO notifications_elsewhere`)
	})
	eventually(t, 10*time.Second, func() bool {
		return logs.Contains("worker=notify.deliver1") && logs.Contains("worker=notify.deliver2")
	}, "both delivery workers' failures are logged by name: %s", logs.String())
	require.False(t, logs.Contains("worker=notify.deliver0"), "workers are counted from one: %s", logs.String())
}
