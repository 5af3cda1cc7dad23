package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
	"github.com/pactboard/pact/sdk/plugintest"
)

// The plugin as the host sees it (every call over real gRPC, in-process),
// sending to a real SMTP server.

func sample() notifier.Notification {
	return notifier.Notification{ID: "42", IdempotencyKey: "ntf_42_x", Kind: "pact_unread",
		Title: "Nobody read message 3 of PACT-7", Detail: "ana: please look at the schema",
		OrgID: "default", ProjectID: "web", HumanID: "ana", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Links: []notifier.Link{{Label: "Your notifications", URL: "https://board.example.com/console/notifications"},
			{Label: "Email settings", URL: "https://board.example.com/console/settings"}}}
}

func plugin(t *testing.T, r *receiver) notifier.Notifier {
	t.Helper()
	cfg, err := ParseSMTPURL(r.url())
	require.NoError(t, err)
	return plugintest.Notifier(t, New(cfg, Options{Timeout: 5 * time.Second}))
}

func TestDeliverSendsOneEmailToTheDestinationsAddress(t *testing.T) {
	r := newReceiver(t, nil, nil)
	p := plugin(t, r)
	caps, err := p.Capabilities(t.Context())
	require.NoError(t, err)
	require.Equal(t, "notifier-email", caps.Name)

	_, err = p.Deliver(t.Context(), notifier.Destination{URL: "mailto:ana@example.com", Options: map[string]string{"name": "Ana"}}, sample())
	require.NoError(t, err)
	m := r.next(t)
	require.Equal(t, "board@example.com", m.From)
	require.Equal(t, []string{"ana@example.com"}, m.To, "only the destination's address")
	require.Equal(t, "Nobody has read a pact message yet: Nobody read message 3 of PACT-7", m.Subject)
	require.Regexp(t, `^<ntf_42_x\.[0-9a-f]{12}@pact-board>$`, m.Header.Get("Message-Id"), "the notice's idempotency key")
	require.Equal(t, "auto-generated", m.Header.Get("Auto-Submitted"))
	require.Contains(t, m.Body, "Hello Ana,")
	require.Contains(t, m.Body, "ana: please look at the schema")
	require.Contains(t, m.Body, "Your notifications: https://board.example.com/console/notifications", "a link to the console")
	require.Contains(t, m.Body, "Choose what is emailed to you: https://board.example.com/console/settings")
}

// The same notice to the same person has the same Message-ID on every
// attempt, and another person's differs.
func TestMessageIDIsStablePerNoticeAndPerson(t *testing.T) {
	r := newReceiver(t, nil, nil)
	p := plugin(t, r)
	for _, to := range []string{"ana@example.com", "ana@example.com", "val@example.com"} {
		_, err := p.Deliver(t.Context(), notifier.Destination{URL: "mailto:" + to}, sample())
		require.NoError(t, err)
	}
	a, again, v := r.next(t), r.next(t), r.next(t)
	require.Equal(t, a.Header.Get("Message-Id"), again.Header.Get("Message-Id"))
	require.NotEqual(t, a.Header.Get("Message-Id"), v.Header.Get("Message-Id"))
}

// The email's own words are in the notification's language (the
// recipient's); the board's title and detail come as they are.
func TestEmailIsInTheRecipientsLanguage(t *testing.T) {
	r := newReceiver(t, nil, nil)
	p := plugin(t, r)
	n := sample()
	n.Language = "th"
	_, err := p.Deliver(t.Context(), notifier.Destination{URL: "mailto:ana@example.com", Options: map[string]string{"name": "Ana"}}, n)
	require.NoError(t, err)
	m := r.next(t)
	require.Equal(t, "ยังไม่มีใครอ่านข้อความใน pact: Nobody read message 3 of PACT-7", m.Subject)
	require.Contains(t, m.Body, "สวัสดีคุณ Ana")
	require.Contains(t, m.Body, "การแจ้งเตือนของคุณ: https://board.example.com/console/notifications")
	require.NotContains(t, m.Body, "Your notifications")
	require.Equal(t, "th", m.Header.Get("Content-Language"))
}

// A 5xx reply refuses the recipient for good: InvalidRequest, which the
// board records and never retries; a 4xx is Unavailable, retried.
func TestRefusalsKeepTheirNature(t *testing.T) {
	r := newReceiver(t, []string{"gone@example.com"}, []string{"full@example.com"})
	p := plugin(t, r)
	_, err := p.Deliver(t.Context(), notifier.Destination{URL: "mailto:gone@example.com"}, sample())
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "550")
	_, err = p.Deliver(t.Context(), notifier.Destination{URL: "mailto:full@example.com"}, sample())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "451")

	down := newReceiver(t, nil, nil)
	cfg, err := ParseSMTPURL(down.url())
	require.NoError(t, err)
	cfg.Port = 1 // nothing listens there
	_, err = plugintest.Notifier(t, New(cfg, Options{Timeout: 2 * time.Second})).
		Deliver(t.Context(), notifier.Destination{URL: "mailto:ana@example.com"}, sample())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "no server is worth retrying: %v", err)
	require.Empty(t, r.mails)
}

func TestOnlyMailtoDestinations(t *testing.T) {
	p := plugin(t, newReceiver(t, nil, nil))
	for _, u := range []string{"https://example.com", "mailto:", "mailto:a@example.com,b@example.com", "mailto:Ana <a@example.com>", "ana@example.com"} {
		_, err := p.PrepareDestination(t.Context(), notifier.Destination{URL: u})
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), u)
		_, err = p.Deliver(t.Context(), notifier.Destination{URL: u}, sample())
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), u)
	}
	d, err := p.PrepareDestination(t.Context(), notifier.Destination{URL: "mailto:ana@example.com"})
	require.NoError(t, err)
	require.Equal(t, "mailto:ana@example.com", d.URL)
}

func TestParseSMTPURL(t *testing.T) {
	c, err := ParseSMTPURL("smtp://u%40x:p%3Ass@mail.example.com?from=board@example.com")
	require.NoError(t, err)
	require.Equal(t, Config{Host: "mail.example.com", Port: 587, Username: "u@x", Password: "p:ss", From: "board@example.com", TLS: TLSStartTLS}, c)
	c, err = ParseSMTPURL("smtps://mail.example.com?from=board@example.com")
	require.NoError(t, err)
	require.Equal(t, 465, c.Port)
	require.Equal(t, TLSImplicit, c.TLS)
	c, err = ParseSMTPURL("smtp://relay:2525?from=board@example.com&tls=none")
	require.NoError(t, err)
	require.Equal(t, 2525, c.Port)
	for _, bad := range []string{"", "http://mail.example.com?from=a@b.c", "smtp://mail.example.com", "smtp://mail.example.com?from=nobody",
		"smtp://mail.example.com?from=a@b.c&tls=maybe", "smtp://mail.example.com:0?from=a@b.c", "smtp://?from=a@b.c",
		"smtp://mail.example.com?from=a@b.c&fro=x", "smtps://mail.example.com?from=a@b.c&tls=none"} {
		_, err := ParseSMTPURL(bad)
		require.Error(t, err, bad)
	}
	_, err = ParseSMTPURL("smtp://u:hunter2@mail.example.com?from=nobody")
	require.NotContains(t, err.Error(), "hunter2", "the password is never repeated")
}
