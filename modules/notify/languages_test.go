package notify_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
)

// An organization set to Thai gets its expiry warnings in the original's
// words (docs/specs/behavior.md §8.8); another organization, left at the
// default, gets them in English in the same sweep.
func TestExpiryWarningsAreWrittenInTheOrganizationsLanguage(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	require.NoError(t, w.Identity.SetOrgLanguage(ctx, d, "default", "th"))
	agent(t, d, "runner-web", "active", "web")
	mandate(t, d, "runner-web", "now() + interval '1 day'")
	token(t, d, "runner-web", "now() + interval '1 day'")
	agent(t, d, "gone", "active", "web")
	token(t, d, "gone", "now() - interval '1 hour'")
	mandate(t, d, "gone", "now() - interval '1 hour'", "now() - interval '10 days'")
	acme := acmeOf(t, d)
	_, err := d.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client, status) VALUES ('runner-rocket', ?, 'bo', 'runner', 'active');
		INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('runner-rocket', 'rocket', ?)`, acme, acme)
	require.NoError(t, err)
	token(t, d, "runner-rocket", "now() + interval '1 day'")

	n, err := expirySvc(d).SweepExpiry(ctx)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	ws := warnings(t, d)
	require.Len(t, ws, 5)
	when := `\d{4}-\d\d-\d\d \d\d:\d\d UTC$`
	require.Regexp(t, `^gone: token หมดอายุแล้วเมื่อ `+when, ws[0].Title)
	require.Regexp(t, `^gone: ใบมอบอำนาจราก หมดอายุแล้วเมื่อ `+when, ws[1].Title)
	require.Equal(t, "expired", ws[0].Kind)
	require.Regexp(t, `^runner-rocket: token expires `+when, ws[2].Title)
	require.Equal(t, "Renew it with pact-admin token-issue and update the agent's environment", ws[2].Detail)
	require.Regexp(t, `^runner-web: token จะหมดอายุ `+when, ws[3].Title)
	require.Equal(t, "ต่ออายุด้วย pact-admin token-issue แล้วอัปเดต env ของ agent", ws[3].Detail)
	require.Regexp(t, `^runner-web: ใบมอบอำนาจราก จะหมดอายุ `+when, ws[4].Title)
	require.Equal(t, "ต่ออายุด้วย pact-admin mandate-issue แล้วอัปเดต env ของ agent", ws[4].Detail)
	require.Equal(t, "expiring", ws[4].Kind)
}

// Every notifier is told the language of the notification's organization
// (notifier.Notification.Language): "en" by default, "th" once the
// organization chooses Thai.
func TestDeliveryCarriesTheOrganizationsLanguage(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	enqueue(t, d, outbox.Notification{Kind: outbox.Deferred, ProjectID: "web", TaskID: w.task, Title: "one"})
	_, err := svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.NoError(t, w.Identity.SetOrgLanguage(ctx, d, "default", "th"))
	enqueue(t, d, outbox.Notification{Kind: outbox.Deferred, ProjectID: "web", TaskID: w.task, Title: "two"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	got := slack.deliveries()
	require.Len(t, got, 2)
	require.Equal(t, "one", got[0].N.Title)
	require.Equal(t, "en", got[0].N.Language)
	require.Equal(t, "two", got[1].N.Title)
	require.Equal(t, "th", got[1].N.Language)
}

// A notification for one person names them (notifier.Notification.HumanID)
// and is told in their language once they chose one; one for the
// organization's people, and one for a person who follows the
// organization, keeps the organization's. A person of another
// organization cannot change it.
func TestDeliveryForOnePersonCarriesThemAndTheirLanguage(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	slack := &recorder{}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack})
	th := "th"
	_, err := w.Identity.SetHumanLanguage(ctx, d, "vic", &th)
	require.NoError(t, err)
	_, err = w.Identity.SetHumanLanguage(ctx, d, "bo", &th)
	require.NoError(t, err)
	for _, n := range []outbox.Notification{
		{Kind: outbox.PactUnread, ProjectID: "web", HumanID: "vic", Title: "vic's"},
		{Kind: outbox.PactUnread, ProjectID: "web", HumanID: "ana", Title: "ana's"},
		{Kind: outbox.Deferred, ProjectID: "web", TaskID: w.task, Title: "everyone's"},
		{Kind: outbox.PactStuck, ProjectID: "web", HumanID: "bo", Title: "not bo's organization"},
	} {
		enqueue(t, d, n)
		_, err = svc.DeliverDue(ctx)
		require.NoError(t, err)
	}
	got := slack.deliveries()
	require.Len(t, got, 4)
	for i, want := range []struct{ human, lang string }{{"vic", "th"}, {"ana", "en"}, {"", "en"}, {"bo", "en"}} {
		require.Equal(t, want.human, got[i].N.HumanID, got[i].N.Title)
		require.Equal(t, want.lang, got[i].N.Language, got[i].N.Title)
	}
}
