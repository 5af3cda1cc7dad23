package board_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// prepareWebhook is the webhook notifier as a board sees it, without its
// process: it answers a destination to check as prepare does, and takes
// every delivery.
type prepareWebhook func(notifier.Destination) (*notifier.Destination, error)

func (p prepareWebhook) Notifier(string) (notifier.Notifier, error) { return p, nil }

func (prepareWebhook) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "webhook"}, nil
}

func (p prepareWebhook) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return p(d)
}

func (prepareWebhook) Deliver(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error) {
	return &notifier.Receipt{}, nil
}

// newPrepareWorld is an A2A world whose board checks push configs with
// prepare, and one task of a2a-web's; it returns the task.
func newPrepareWorld(t *testing.T, prepare prepareWebhook) (*world, string) {
	w := newWorldOf(t, board.New(board.Options{Notifiers: prepare}))
	w.agent("a2a-web", "a2a", nil, "web")
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Push me", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	return w, id
}

// pushRefusal is the error of a CreateTaskPushNotificationConfig of
// params, with its field violation's field ("" when it names none).
func pushRefusal(t *testing.T, w *world, params map[string]any) (e map[string]any, field string) {
	t.Helper()
	_, out := w.a2a("a2a-web", "CreateTaskPushNotificationConfig", params)
	e, ok := out["error"].(map[string]any)
	require.True(t, ok, "a refusal: %v", out)
	data, _ := e["data"].([]any)
	for _, d := range data {
		if v, ok := d.(map[string]any)["fieldViolations"].([]any); ok && len(v) > 0 {
			field = v[0].(map[string]any)["field"].(string)
		}
	}
	return e, field
}

// A push config's token and credentials are at most 1,024 characters
// (docs/a2a.md, "Push notifications"): 1,024 are taken, one more is
// refused (-32602) naming the field.
func TestAPushConfigsTokenAndCredentialsAreAtMost1024Characters(t *testing.T) {
	w, id := newPrepareWorld(t, func(d notifier.Destination) (*notifier.Destination, error) { return &d, nil })
	longest := strings.Repeat("t", 1024)
	w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": "https://client.example/token",
		"token": longest})
	w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": "https://client.example/auth",
		"authentication": map[string]any{"scheme": "Bearer", "credentials": longest}})

	e, field := pushRefusal(t, w, map[string]any{"taskId": id, "url": "https://client.example/token", "token": longest + "t"})
	require.Equal(t, float64(-32602), e["code"], "%v", e)
	require.Equal(t, "token", field)
	e, field = pushRefusal(t, w, map[string]any{"taskId": id, "url": "https://client.example/auth",
		"authentication": map[string]any{"scheme": "Bearer", "credentials": longest + "t"}})
	require.Equal(t, float64(-32602), e["code"], "%v", e)
	require.Equal(t, "authentication.credentials", field)
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM a2a_push_configs WHERE task_id = ?`, id), "the refused ones made nothing")
}

// The webhook plugin decides a config's URL: the URL it answers is the
// one kept; its refusal is -32602 naming url, with its words; a plugin
// that cannot answer now is -32603 asking to try again; any other failure
// is -32603. A refusal makes no config.
func TestTheWebhookPluginDecidesAPushConfigsURL(t *testing.T) {
	var answer error
	w, id := newPrepareWorld(t, func(d notifier.Destination) (*notifier.Destination, error) {
		if answer != nil {
			return nil, answer
		}
		d.URL = strings.TrimSuffix(d.URL, "/") + "/as-the-plugin-says"
		return &d, nil
	})
	made := w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": "https://client.example/hook/"})
	require.Equal(t, "https://client.example/hook/as-the-plugin-says", made["url"])

	answer = errs.E(errs.InvalidRequest, "client.example resolves to a private address")
	e, field := pushRefusal(t, w, map[string]any{"taskId": id, "url": "https://client.example/private"})
	require.Equal(t, float64(-32602), e["code"], "%v", e)
	require.Equal(t, "url", field)
	require.Contains(t, e["message"], "client.example resolves to a private address")

	answer = errs.E(errs.Unavailable, "the webhook plugin is restarting")
	e, _ = pushRefusal(t, w, map[string]any{"taskId": id, "url": "https://client.example/later"})
	require.Equal(t, float64(-32603), e["code"], "%v", e)
	require.Equal(t, "the webhook plugin is restarting; try again", e["message"])

	answer = errors.New("the plugin's pipe broke")
	e, _ = pushRefusal(t, w, map[string]any{"taskId": id, "url": "https://client.example/broken"})
	require.Equal(t, float64(-32603), e["code"], "%v", e)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM a2a_push_configs WHERE task_id = ?`, id), "the refused ones made nothing")
}

// A page token is an offset into an agent's configs on a task, at most
// the five it may hold: "0" is the first page, "5" the empty one past the
// last; "6" and "-1" are none the board could give, refused (-32602)
// naming pageToken.
func TestAPushConfigPageTokenIsAnOffsetWithinTheCap(t *testing.T) {
	w, id := newPrepareWorld(t, func(d notifier.Destination) (*notifier.Destination, error) { return &d, nil })
	for i := range 5 {
		w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id,
			"url": "https://client.example/" + strconv.Itoa(i)})
	}
	page := w.a2aResult("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id, "pageSize": 2, "pageToken": "0"})
	require.Len(t, page["configs"], 2)
	require.Equal(t, "2", page["nextPageToken"])
	page = w.a2aResult("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id, "pageToken": "5"})
	require.Empty(t, page["configs"])
	require.Empty(t, page["nextPageToken"])
	for _, token := range []string{"6", "-1"} {
		_, out := w.a2a("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id, "pageToken": token})
		e := out["error"].(map[string]any)
		require.Equal(t, float64(-32602), e["code"], "%s: %v", token, e)
		require.Contains(t, e["message"], "pageToken", token)
	}
}

// A config whose sealed value no longer opens (altered at rest) is not
// answered without it: reading it is an error, whichever of its url,
// token or credentials it is.
func TestAPushConfigWhoseValueNoLongerOpensIsNotAnsweredWithoutIt(t *testing.T) {
	for _, col := range []string{"url", "token", "credentials"} {
		t.Run(col, func(t *testing.T) {
			w, id := newPrepareWorld(t, func(d notifier.Destination) (*notifier.Destination, error) { return &d, nil })
			made := w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id,
				"url": "https://client.example/hook", "token": "t0ken",
				"authentication": map[string]any{"scheme": "Bearer", "credentials": "s3cret"}})
			w.Exec(`UPDATE a2a_push_configs SET `+col+` = left(`+col+`, -4) || 'AAAA' WHERE task_id = ?`, id)
			_, out := w.a2a("a2a-web", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": made["id"]})
			e, ok := out["error"].(map[string]any)
			require.True(t, ok, "an error, not a config without its %s: %v", col, out)
			require.Equal(t, float64(-32603), e["code"], "%v", e)
		})
	}
}

// An agent's signing key is made at its first extended card and is the
// same at every read after.
func TestAnAgentsSigningKeyIsMadeAtItsFirstCardAndKept(t *testing.T) {
	w, _ := newPrepareWorld(t, func(d notifier.Destination) (*notifier.Destination, error) { return &d, nil })
	first := w.signingKey("a2a-web")
	require.True(t, strings.HasPrefix(first, "whsec_"), first)
	require.Equal(t, first, w.signingKey("a2a-web"))
}
