package notify_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
)

// A notification for one person goes out while they are enabled; once
// they are disabled it is set aside dead, saying why, and reaches no
// destination (SEC-025: a stop reaches every channel).
func TestANotificationForADisabledPersonIsSetAside(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	hook := &recorder{}
	svc := notify.NewService(w.DB, nil, &notify.Options{Notifiers: plugins{"webhook": hook}})
	_, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: "https://receiver.example/hook"})
	require.NoError(t, err)

	sent := enqueue(t, w.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", HumanID: "vic", Title: "while enabled"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.NotNil(t, state(t, w.DB, sent).SentAt)
	require.Len(t, hook.deliveries(), 1)

	w.Exec(`UPDATE humans SET disabled_at = now() WHERE id = 'vic'`)
	aside := enqueue(t, w.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", HumanID: "vic", Title: "once disabled"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	st := state(t, w.DB, aside)
	require.NotNil(t, st.DeadAt)
	require.Equal(t, notify.AddresseeDisabled, *st.LastError)
	require.Len(t, hook.deliveries(), 1, "nothing more reached the destination")
}
