package notify_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// preparing is a notifier whose PrepareDestination answers dest and err,
// whatever it is given.
type preparing struct {
	dest *notifier.Destination
	err  error
}

func (p *preparing) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "preparing", Version: "1"}, nil
}

func (p *preparing) PrepareDestination(context.Context, notifier.Destination) (*notifier.Destination, error) {
	return p.dest, p.err
}

func (p *preparing) Deliver(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error) {
	return &notifier.Receipt{Status: 200}, nil
}

// What a notifier plugin answers when asked to prepare a destination
// decides the refusal: its own error keeps its code (a plugin that is down
// is unavailable, not the owner's mistake), and a destination that is
// empty, or too long for the board to store, is invalid_request. Nothing
// is stored in any of these cases.
func TestAPluginsAnswerToADestinationDecidesTheRefusal(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	in := notify.DestinationInput{Notifier: "webhook", URL: "https://example.com/hook"}
	for _, tt := range []struct {
		name string
		p    *preparing
		code errs.Code
	}{
		{"PluginDown", &preparing{err: errs.E(errs.Unavailable, "plugin is down")}, errs.Unavailable},
		{"NoDestination", &preparing{}, errs.InvalidRequest},
		{"EmptyURL", &preparing{dest: &notifier.Destination{Secret: "s"}}, errs.InvalidRequest},
		{"URLTooLongToStore", &preparing{dest: &notifier.Destination{URL: "https://example.com/" + strings.Repeat("a", 3900)}},
			errs.InvalidRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := notify.NewService(w.DB, nil, &notify.Options{Notifiers: plugins{"webhook": tt.p}})
			_, err := svc.AddDestination(ctx, "ana", in)
			require.Equal(t, tt.code, errs.CodeOf(err), "%v", err)
		})
	}
	var n int
	require.NoError(t, w.DB.NewRaw(`SELECT count(*) FROM notify_destinations`).Scan(ctx, &n))
	require.Zero(t, n)
}

// Each limit of a destination's fields is inclusive: a field exactly at its
// limit is stored, one character (or option) more is invalid_request.
func TestADestinationFieldAtItsLimitIsAcceptedAndOneMoreIsRefused(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	svc := notify.NewService(w.DB, nil, &notify.Options{Notifiers: plugins{"webhook": &recorder{}}})
	base := "https://example.com/"
	urlOf := func(n int) string { return base + strings.Repeat("a", n-len(base)) }
	optionsOf := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("k%d", i)] = "v"
		}
		return m
	}
	for _, tt := range []struct {
		name    string
		in      notify.DestinationInput
		refused bool
	}{
		{"URLAtLimit", notify.DestinationInput{URL: urlOf(2000)}, false},
		{"URLOverLimit", notify.DestinationInput{URL: urlOf(2001)}, true},
		{"SecretAtLimit", notify.DestinationInput{URL: base, Secret: strings.Repeat("é", 500)}, false},
		{"SecretOverLimit", notify.DestinationInput{URL: base, Secret: strings.Repeat("é", 501)}, true},
		{"OptionsAtLimit", notify.DestinationInput{URL: base, Options: optionsOf(20)}, false},
		{"OptionsOverLimit", notify.DestinationInput{URL: base, Options: optionsOf(21)}, true},
		{"OptionNameAtLimit", notify.DestinationInput{URL: base, Options: map[string]string{strings.Repeat("k", 100): "v"}}, false},
		{"OptionNameOverLimit", notify.DestinationInput{URL: base, Options: map[string]string{strings.Repeat("k", 101): "v"}}, true},
		{"OptionNameEmpty", notify.DestinationInput{URL: base, Options: map[string]string{"": "v"}}, true},
		{"OptionValueAtLimit", notify.DestinationInput{URL: base, Options: map[string]string{"k": strings.Repeat("é", 500)}}, false},
		{"OptionValueOverLimit", notify.DestinationInput{URL: base, Options: map[string]string{"k": strings.Repeat("é", 501)}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Notifier = "webhook"
			_, err := svc.AddDestination(ctx, "ana", tt.in)
			if tt.refused {
				require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
				return
			}
			require.NoError(t, err)
		})
	}
}

// A destination's listed hint shows the path's last four characters only
// when the path is longer than eight, so a short path is not all but given
// away.
func TestADestinationHintShowsThePathsEndOnlyWhenThePathIsLong(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	svc := notify.NewService(w.DB, nil, &notify.Options{Notifiers: plugins{"webhook": &recorder{}}})
	for url, hint := range map[string]string{
		"https://example.com/abcdefg":  "https://example.com/",
		"https://example.com/abcdefgh": "https://example.com/…efgh",
	} {
		added, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: url})
		require.NoError(t, err)
		require.Equal(t, hint, added.URLHint, url)
	}
}

// A board whose plugins include no email notifier sends no email: other
// notifier plugins running does not make it say email is sent.
func TestNoEmailWhenOnlyOtherNotifierPluginsRun(t *testing.T) {
	b := newInboxBoardWith(t, notify.New(notify.Options{Notifiers: plugins{"webhook": &recorder{}}}))
	r := b.Admin("ana", http.MethodGet, "/me/email", "")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, false, r.Body["sending"])
}

// An email carries links to the person's notifications and email settings
// when the console's URL is known, and none when it is not (a link to
// nowhere would be broken).
func TestAnEmailLinksToTheConsoleOnlyWhenItsURLIsKnown(t *testing.T) {
	ctx := context.Background()
	for _, console := range []string{"https://board.example.com/console", ""} {
		t.Run(fmt.Sprintf("console=%q", console), func(t *testing.T) {
			w := newWorld(t)
			w.Exec(`UPDATE humans SET email = id || '@example.com'`)
			mail := &recorder{}
			svc := notify.NewService(w.DB, nil, &notify.Options{Notifiers: plugins{"email": mail}, ConsoleURL: console})
			_, err := svc.SetEmailKinds(ctx, &identity.Person{ID: "ana", OrgID: "default"}, []string{string(outbox.Message)})
			require.NoError(t, err)
			enqueue(t, w.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", HumanID: "ana", Title: "hello"})
			_, err = svc.DeliverDue(ctx)
			require.NoError(t, err)
			got := mail.deliveries()
			require.Len(t, got, 1)
			require.Equal(t, "mailto:ana@example.com", got[0].Dest.URL)
			var labels []string
			for _, l := range got[0].N.Links {
				labels = append(labels, l.Label)
			}
			if console == "" {
				require.Empty(t, labels)
				return
			}
			require.Equal(t, []string{notify.NotificationsLabel, notify.EmailSettingsLabel}, labels)
			require.Equal(t, console+"/settings", got[0].N.Links[1].URL)
		})
	}
}

// An agent's new token is a new subject: when it too is about to expire,
// it is warned of again, though the agent's earlier token was.
func TestANewTokenAboutToExpireIsWarnedOfAgain(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	agent(t, d, "runner-web", "active", "web")
	token(t, d, "runner-web", "now() + interval '1 hour'")
	n, err := expirySvc(d).SweepExpiry(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	token(t, d, "runner-web", "now() + interval '2 hours'")
	n, err = expirySvc(d).SweepExpiry(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the new token is warned of")
	require.Len(t, warnings(t, d), 2)
}

// A running board keeps sweeping after a sweep that queued warnings, so a
// token issued later is warned of too; and its log tells of the sweeps that
// queued warnings, not of the many that found nothing new.
func TestTheBoardKeepsSweepingAndLogsOnlySweepsThatQueuedWarnings(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	agent(t, d, "runner-web", "active", "web")
	token(t, d, "runner-web", "now() + interval '1 hour'")
	logs := &logtest.Buffer{}
	startProcess(w, map[string]string{"PACT_EXPIRY_WARN_HOURS": "2"}, notify.Options{SweepEvery: 50 * time.Millisecond,
		SweepCheck: 10 * time.Millisecond, Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})})
	eventually(t, 10*time.Second, func() bool { return len(warnings(t, d)) == 1 }, "the first token is warned of")
	token(t, d, "runner-web", "now() + interval '90 minutes'")
	eventually(t, 10*time.Second, func() bool { return len(warnings(t, d)) == 2 }, "the later token is warned of")

	// Two more sweeps, which find nothing new; the loop logs a sweep before
	// it takes the lease again.
	lease := func() time.Time {
		var at time.Time
		require.NoError(t, d.NewRaw(`SELECT expires_at FROM notify_leases WHERE name = 'expiry-sweep'`).Scan(ctx, &at))
		return at
	}
	for range 2 {
		was := lease()
		eventually(t, 10*time.Second, func() bool { return !lease().Equal(was) }, "the board sweeps again")
	}
	require.Equal(t, 2, strings.Count(logs.String(), "queued expiry warnings"), "%s", logs.String())
	require.Contains(t, logs.String(), "count=1")
}

// A page that holds the last of a person's notices says there is no next
// page, even when it is exactly full.
func TestAFullLastInboxPageHasNoNextPage(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	svc := notify.NewService(w.DB, nil, nil)
	ana := &identity.Person{ID: "ana", OrgID: "default"}
	for _, title := range []string{"one", "two"} {
		enqueue(t, w.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", HumanID: "ana", Title: title})
	}
	page, err := svc.ListInbox(ctx, ana, outbox.All, 0, 2)
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	require.Zero(t, page.Next)
}

// A sweep that fails while the board runs is retried: once the database
// works again, the board sweeps and warns as before.
func TestTheBoardSweepsAgainAfterASweepFails(t *testing.T) {
	w := newWorld(t)
	d := w.DB
	// Every sweep fails while the trigger is there; the sequence, which no
	// rollback undoes, counts the tries.
	w.Exec(`CREATE SEQUENCE sweep_tries`)
	w.Exec(`CREATE FUNCTION fail_sweep() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM nextval('sweep_tries'); RAISE EXCEPTION 'the database is down'; END $$`)
	w.Exec(`CREATE TRIGGER fail_sweep BEFORE INSERT ON notify_leases FOR EACH ROW EXECUTE FUNCTION fail_sweep()`)
	agent(t, d, "runner-web", "active", "web")
	token(t, d, "runner-web", "now() + interval '1 hour'")
	startProcess(w, map[string]string{"PACT_EXPIRY_WARN_HOURS": "2"}, notify.Options{SweepEvery: 50 * time.Millisecond,
		SweepCheck: 10 * time.Millisecond})
	eventually(t, 10*time.Second, func() bool {
		return w.Count(`SELECT count(*) FROM pg_sequences WHERE sequencename = 'sweep_tries' AND last_value IS NOT NULL`) == 1
	}, "a sweep fails")
	w.Exec(`DROP TRIGGER fail_sweep ON notify_leases`)
	eventually(t, 15*time.Second, func() bool { return len(warnings(t, d)) == 1 }, "the board sweeps again")
}

// A failed delivery's last error keeps the notifier's code and message but
// not the cause wrapped inside it, and is cut only when longer than 500
// characters: one of exactly 500 is kept whole.
func TestAFailedDeliverysLastErrorKeepsTheCodeAndMessageUpTo500Characters(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("try later ", 47) + "ok" // "Slack webhook: unavailable: " and this are 500 characters
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"WrappedCause", &errs.Error{Code: errs.Unavailable, Message: "slack is down", Err: fmt.Errorf("dial tcp: refused")},
			"Slack webhook: unavailable: slack is down"},
		{"ExactlyTheLimit", errs.E(errs.Unavailable, "%s", long), "Slack webhook: unavailable: " + long},
		{"OverTheLimit", errs.E(errs.Unavailable, "%s", long+"!"), "Slack webhook: unavailable: " + long[:len(long)-1] + "…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			slack := &recorder{fail: 1, err: tt.err}
			svc := notify.NewService(w.DB, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
			id := enqueue(t, w.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
			_, err := svc.DeliverDue(ctx)
			require.NoError(t, err)
			require.Equal(t, tt.want, *state(t, w.DB, id).LastError)
		})
	}
}
