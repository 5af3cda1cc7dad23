package plugintest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
	"github.com/pactboard/pact/sdk/plugintest"
)

var t0 = time.Date(2026, 11, 30, 9, 15, 0, 123456789, time.UTC)

func TestNotifierRoundTrip(t *testing.T) {
	ctx := context.Background()
	dest := notifier.Destination{URL: "https://example.test/hook", Secret: "whsec_x", Options: map[string]string{"channel": "#ops"}}
	note := notifier.Notification{
		ID: "n1", IdempotencyKey: "k1", Kind: "brief", Title: "Daily brief", Detail: "3 tasks",
		OrgID: "default", ProjectID: "web", TaskID: "t1", AgentID: "a1",
		Links: []notifier.Link{{Label: "Open task", URL: "https://ui.test/tasks/t1"}},
		Brief: &notifier.Brief{Greeting: "Good morning", Sections: []notifier.BriefSection{
			{Title: "Waiting on you", Items: []notifier.BriefItem{{Text: "Approve deploy", TaskID: "t1", URL: "https://ui.test/tasks/t1"}}},
			{Title: "Done", Items: []notifier.BriefItem{{Text: "Fixed login"}}},
		}},
		CreatedAt: t0, Language: "th", Data: []byte(`{"pact_id":"p1"}`),
		HumanID: "ana",
	}
	var gotDest notifier.Destination
	var gotNote notifier.Notification
	n := plugintest.Notifier(t, &fakeNotifier{
		capabilities: func(context.Context) (*notifier.Capabilities, error) {
			return &notifier.Capabilities{Name: "fake", Version: "1.2.3", Kinds: []string{"brief", "question"}, Structured: true}, nil
		},
		prepare: func(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
			d.Secret = "whsec_generated"
			return &d, nil
		},
		deliver: func(_ context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
			gotDest, gotNote = d, n
			return &notifier.Receipt{Status: 202, Detail: "queued"}, nil
		},
	})

	caps, err := n.Capabilities(ctx)
	require.NoError(t, err)
	require.Equal(t, &notifier.Capabilities{Name: "fake", Version: "1.2.3", Kinds: []string{"brief", "question"}, Structured: true}, caps)

	prepared, err := n.PrepareDestination(ctx, notifier.Destination{URL: dest.URL, Options: dest.Options})
	require.NoError(t, err)
	require.Equal(t, &notifier.Destination{URL: dest.URL, Secret: "whsec_generated", Options: dest.Options}, prepared)

	rc, err := n.Deliver(ctx, dest, note)
	require.NoError(t, err)
	require.Equal(t, &notifier.Receipt{Status: 202, Detail: "queued"}, rc)
	require.Equal(t, dest, gotDest)
	require.True(t, note.CreatedAt.Equal(gotNote.CreatedAt))
	gotNote.CreatedAt = note.CreatedAt
	require.Equal(t, note, gotNote)
}

func TestNotifierZeroValues(t *testing.T) {
	var got notifier.Notification
	n := plugintest.Notifier(t, &fakeNotifier{
		deliver: func(_ context.Context, _ notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
			got = n
			return nil, nil // a nil receipt is an empty one
		},
	})
	rc, err := n.Deliver(context.Background(), notifier.Destination{}, notifier.Notification{ID: "n1"})
	require.NoError(t, err)
	require.Equal(t, &notifier.Receipt{}, rc)
	require.Equal(t, notifier.Notification{ID: "n1"}, got)
	require.True(t, got.CreatedAt.IsZero())
	require.Nil(t, got.Brief)
}

func TestNotifierErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		err     error
		code    errs.Code
		message string
	}{
		{"InvalidRequest", errs.E(errs.InvalidRequest, "only https://hooks.slack.com/services/… URLs are accepted"),
			errs.InvalidRequest, "only https://hooks.slack.com/services/… URLs are accepted"},
		{"Unavailable", errs.E(errs.Unavailable, "receiver answered 503: try later"), errs.Unavailable, "receiver answered 503: try later"},
		{"Wrapped", errors.Join(errors.New("context"), errs.E(errs.Unauthorized, "bad secret")), errs.Unauthorized, "bad secret"},
		{"Plain", errors.New("boom"), errs.Internal, "boom"},
		{"Deadline", context.DeadlineExceeded, errs.Unavailable, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := plugintest.Notifier(t, &fakeNotifier{
				deliver: func(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error) {
					return nil, tt.err
				},
			})
			rc, err := n.Deliver(context.Background(), notifier.Destination{}, notifier.Notification{})
			require.Nil(t, rc)
			require.Equal(t, tt.code, errs.CodeOf(err), "%v", err)
			if tt.message != "" {
				e, _ := errs.As(err)
				require.Equal(t, tt.message, e.Message)
			}
		})
	}
}

func TestNotifierMandateID(t *testing.T) {
	n := plugintest.Notifier(t, &fakeNotifier{
		prepare: func(context.Context, notifier.Destination) (*notifier.Destination, error) {
			return nil, errs.Mandate(errs.ScopeExceeded, "m-42", "not in scope")
		},
	})
	_, err := n.PrepareDestination(context.Background(), notifier.Destination{})
	e, ok := errs.As(err)
	require.True(t, ok)
	require.Equal(t, &errs.Error{Code: errs.ScopeExceeded, MandateID: "m-42", Message: "not in scope"}, e)
}

func TestNotifierPanicIsInternal(t *testing.T) {
	n := plugintest.Notifier(t, &fakeNotifier{
		capabilities: func(context.Context) (*notifier.Capabilities, error) { panic("nil map") },
	})
	_, err := n.Capabilities(context.Background())
	require.Equal(t, errs.Internal, errs.CodeOf(err))
	require.Contains(t, err.Error(), "plugin panic: nil map")
	// The plugin survived the panic.
	_, err = n.Capabilities(context.Background())
	require.Equal(t, errs.Internal, errs.CodeOf(err))
}

func TestNotifierContextDeadline(t *testing.T) {
	n := plugintest.Notifier(t, &fakeNotifier{
		deliver: func(ctx context.Context, _ notifier.Destination, _ notifier.Notification) (*notifier.Receipt, error) {
			<-ctx.Done() // the deadline crosses the wire
			return nil, ctx.Err()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := n.Deliver(ctx, notifier.Destination{}, notifier.Notification{})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	require.ErrorIs(t, err, context.DeadlineExceeded)
}
