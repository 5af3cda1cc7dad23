package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/board"
)

// newIdlePushWorld is newPushWorld whose push worker's tick is an hour, so
// that it wakes only for what wakes it on purpose; with the board module.
// The kernel logs to logs, when given, from Warn up.
func newIdlePushWorld(t *testing.T, r *pushReceiver, logs *logtest.Buffer, retries ...time.Duration) (*world, *board.Module) {
	host := webhookPlugin(t, webhookPluginDir(t), map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1", "SSL_CERT_FILE": r.caFile})
	b := board.New(board.Options{Notifiers: host, PushRetries: retries, PushTick: time.Hour})
	var opts kerneltest.Options
	if logs != nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Warn})
	}
	w := newWorldWith(t, opts, b)
	w.agent("a2a-web", "a2a", nil, "web")
	runKernel(t, w.Kernel)
	return w, b
}

// A config's first delivery, the task as it stands, is posted at once
// however the config is made (docs/a2a.md, "Push notifications"): with
// CreateTaskPushNotificationConfig, with a SendMessage that posts a task,
// and with a SendMessage on a task (here claimed, so the message has
// someone to go to); not at the worker's next tick, though no change of
// the task may follow the config. A change of the task and a message on
// it are posted at once too.
func TestAPushConfigIsPostedAtOnceHoweverItIsMade(t *testing.T) {
	r := newPushReceiver(t)
	w, _ := newIdlePushWorld(t, r, nil, time.Hour)
	post := func(configuration map[string]any) string {
		configuration["returnImmediately"] = true
		return w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Paint the fence", nil),
			"configuration": configuration})["task"].(map[string]any)["id"].(string)
	}

	made := post(map[string]any{})
	w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": made, "url": r.URL + "/create"})
	require.Equal(t, made, r.await(t, "/create", 1)[0].task(t)["id"])

	posted := post(map[string]any{"taskPushNotificationConfig": map[string]any{"url": r.URL + "/posting"}})
	require.Equal(t, posted, r.await(t, "/posting", 1)[0].task(t)["id"])

	// A change of the task, and a message on it, wake the worker too.
	w.OK("code-web", "pact_claim", map[string]any{"task_id": made, "mandate_id": w.Root("code-web")})
	require.Equal(t, made, r.awaitState(t, "/create", "TASK_STATE_WORKING").task(t)["id"])
	w.OK("code-web", "pact_message", map[string]any{"task_id": made, "body": "Which green?", "mandate_id": w.Root("code-web")})
	r.awaitBody(t, "/create", "Which green?")
	w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("And the shed", map[string]any{"taskId": made}),
		"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{"url": r.URL + "/on-task"}}})
	require.Equal(t, made, r.await(t, "/on-task", 1)[0].task(t)["id"])
}

// The push worker sleeps until the next attempt is due, not until its
// tick: a failed delivery is posted again after its 200 ms wait, and the
// next wait (an hour) is the time it reads to the next attempt.
func TestThePushWorkerWakesWhenTheNextAttemptIsDue(t *testing.T) {
	r := newPushReceiver(t)
	r.failAll.Store(true)
	w, b := newIdlePushWorld(t, r, nil, 200*time.Millisecond, time.Hour)
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Wake for me", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": r.URL + "/down"})
	r.await(t, "/down", 2)
	var next *time.Duration
	require.Eventually(t, func() bool {
		var err error
		next, err = b.NextPushIn(context.Background())
		require.NoError(t, err)
		return next != nil && *next > 59*time.Minute
	}, 20*time.Second, 10*time.Millisecond, "the second failure's wait, an hour, is the time to the next attempt")
	require.LessOrEqual(t, *next, time.Hour)
}

// When the board cannot record a delivery (its database refuses the
// write; here a trigger), the push worker warns with the database's error
// and goes on: the warning is the operator's only sign.
func TestThePushWorkerWarnsWhenItCannotRecordADelivery(t *testing.T) {
	r := newPushReceiver(t)
	logs := &logtest.Buffer{}
	w, _ := newIdlePushWorld(t, r, logs, time.Hour)
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Record me", nil),
		"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{"url": r.URL + "/settle"}}})["task"].(map[string]any)["id"].(string)
	r.await(t, "/settle", 1)
	w.Exec(`CREATE FUNCTION refuse_settling() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.delivered_seq <> OLD.delivered_seq THEN RAISE EXCEPTION 'no settling today'; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER refuse_settling BEFORE UPDATE ON a2a_push_configs FOR EACH ROW EXECUTE FUNCTION refuse_settling()`)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	const warning = "A2A push notifications wait for the next round"
	require.Eventually(t, func() bool { return logs.Contains(warning) }, 45*time.Second, 10*time.Millisecond,
		"the failed record is logged: %s", logs.String())
	require.Contains(t, logs.Line(warning), "no settling today")
}
