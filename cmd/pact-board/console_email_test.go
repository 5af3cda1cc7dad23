package main

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/mail"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/pluginhost"
)

// Issue 31, section 1, Email, in the console (docs/console.md, "Settings,
// Your notifications"; docs/notifications.md, "Email"): a person's email
// choices, made in a real Chromium, decide what the real notifier-email
// plugin sends to a real SMTP server.

// smtpReceiver is a real SMTP server (emersion/go-smtp) on a loopback port
// that keeps every email it accepts.
type smtpReceiver struct {
	addr  string
	mu    sync.Mutex
	mails []receivedMail
}

// receivedMail is one accepted email: its envelope's recipients and its
// decoded subject.
type receivedMail struct {
	To      []string
	Subject string
}

func newSMTPReceiver(t *testing.T) *smtpReceiver {
	t.Helper()
	r := &smtpReceiver{}
	s := smtp.NewServer(r)
	s.Domain = "mx.test"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r.addr = l.Addr().String()
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return r
}

func (r *smtpReceiver) received() []receivedMail {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.mails)
}

func (r *smtpReceiver) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{r: r}, nil }

type smtpSession struct {
	r  *smtpReceiver
	to []string
}

func (s *smtpSession) Reset()                               { s.to = nil }
func (s *smtpSession) Logout() error                        { return nil }
func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, msg.Body); err != nil {
		return err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return err
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.mails = append(s.r.mails, receivedMail{To: s.to, Subject: subject})
	return nil
}

// withEmailPlugin turns email on as an operator does: PACT_SMTP_URL, here
// pointing at rcv, with the real notifier-email binary (built now) in
// PACT_PLUGIN_DIR and pinned by the manifest make build would embed
// (pluginhost.PinEntry, read back as pact-board reads its own).
func withEmailPlugin(t *testing.T, rcv *smtpReceiver) (func(vars map[string]string), func(*Main)) {
	var manifest []pluginhost.Spec
	vars := func(vars map[string]string) {
		t.Helper()
		dir := vars["PACT_PLUGIN_DIR"]
		build := exec.Command("go", "build", "-o", filepath.Join(dir, "notifier-email"), "./plugins/notifier-email")
		build.Dir = filepath.Join("..", "..")
		out, err := build.CombinedOutput()
		require.NoError(t, err, "build the plugin: %s", out)
		entry, err := pluginhost.PinEntry(filepath.Join(dir, "notifier-email"), dir, "", "")
		require.NoError(t, err)
		raw, err := json.Marshal(entry)
		require.NoError(t, err)
		manifest, err = pluginhost.ParseManifest(raw)
		require.NoError(t, err)
		vars["PACT_SMTP_URL"] = "smtp://" + rcv.addr + "?from=board@example.com&tls=none"
	}
	return vars, func(m *Main) { m.Manifest = manifest }
}

// unreadSwitch is the seed's switch for the pact_unread kind.
const unreadSwitch = "Email me when an agent hasn't read a pact message"

// TestConsoleUnreadNudgeReachesTheBellAndTheEmailChosen: on a board that
// sends email (PACT_SMTP_URL, the real notifier-email plugin, a real SMTP
// server), Ana sets her unread threshold to 1 hour and, from the keyboard,
// switches on "Email me when an agent hasn't read a pact message" in
// Settings; Bob switches it on too. Ana and the owner each start a pact
// with code-web, which joins, and post in it; nobody else reads the posts.
// With Ana's Notifications open, the nudge of her pact reaches her bell
// without a reload and her email; the owner's nudge reaches the owner's
// bell but not their email (they have an address, and never switched it
// on); Bob, who switched it on but owns no pact, is told nothing.
//
// What is shortened, and why: the wait. A nudge is due once a message has
// waited the owner's threshold (30 minutes at least, docs/pacts.md
// "People's side"); instead of waiting an hour, the test ages the two
// posts by 61 minutes in the database (as TestConsoleFoldsOlderQuestions-
// AndLongPurposes ages a question), and the board's nudge worker looks
// every second instead of every minute (Main.NudgeEvery), so that the test
// does not idle for its round. The sweep itself is not called by the test:
// the board's own nudge worker finds them on its next round, and the
// board's own delivery worker emails.
func TestConsoleUnreadNudgeReachesTheBellAndTheEmailChosen(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	rcv := newSMTPReceiver(t)
	setup, pin := withEmailPlugin(t, rcv)
	c := startConsoleBoardWith(t, setup, pin, func(m *Main) { m.NudgeEvery = time.Second })
	ctx := context.Background()
	// The owner has an address, so only their choice keeps the email away.
	_, err := c.d.NewRaw(`UPDATE humans SET email = 'owner@example.com' WHERE id = ?`, demoOwner).Exec(ctx)
	require.NoError(t, err)

	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/settings")
	p.ExpectText("Your notifications")
	p.ExpectText("Email goes to ana@example.com.")
	require.Len(t, p.Attrs(`input[role="switch"]:enabled`, "role"), len(outbox.Kinds()), "one switch per kind, each enabled")
	require.Empty(t, p.Attrs(`input[role="switch"]:checked`, "role"), "email is off until turned on")
	p.ExpectText("the two arrive together")
	p.Select("Tell me when a message in a pact I own waits unread for", "1h")
	p.ExpectText("You hear of unread messages after 1 hour.")
	p.TabTo(unreadSwitch, 40) // the switch beside the threshold, by keyboard
	p.Press("Space")
	p.ExpectText(unreadSwitch + ": on.")

	viewer := c.signIn(bob, "Bob Viewer")
	viewer.Goto(c.public + "/console/settings")
	viewer.Click("switch", unreadSwitch)
	viewer.ExpectText(unreadSwitch + ": on.")
	var chosen []string
	require.NoError(t, c.d.NewRaw(`SELECT human_id || ' ' || kind FROM email_choices ORDER BY human_id, kind`).Scan(ctx, &chosen))
	require.Equal(t, []string{"ana pact_unread", "bob pact_unread"}, chosen, "each switch chose its person's kind, nothing else")

	checkout := c.startPact(p, "Checkout", "Rebuild the checkout page.", "code-web")
	owner := c.page(1280, 800)
	owner.Goto(c.localLink())
	launch := c.startPact(owner, "Launch", "Plan the launch.", "code-web")
	for _, id := range []string{checkout, launch} {
		c.agent.ok("join_pact", map[string]any{"mandate_id": c.root, "pact_id": id})
	}
	post := func(pg *browsertest.Page, id, body string) {
		pg.Goto(c.public + "/console/pacts/" + id)
		pg.Fill("Your message", body)
		pg.Click("button", "Post")
		pg.ExpectText("Posted.")
	}
	post(p, checkout, "Is the coupon field still wanted?")
	post(owner, launch, "Who writes the announcement?")

	p.Goto(c.public + "/console/notifications")
	p.ExpectText("Nothing unread.")
	loads := documentLoads(p)

	// Age the two posts past both thresholds (Ana's 1 hour, the owner's 30
	// minutes): messages change only in status (migration 017's trigger),
	// so with the triggers off, as the database's owner.
	tx, err := c.d.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `UPDATE pact_messages SET created_at = created_at - interval '61 minutes' WHERE pact_id IN (?, ?)`, checkout, launch)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())

	count := func(q string, args ...any) int {
		var n int
		require.NoError(t, c.d.NewRaw(q, args...).Scan(ctx, &n))
		return n
	}
	require.Eventually(t, func() bool {
		return count(`SELECT count(*) FROM notifications WHERE kind = 'pact_unread'`) == 2
	}, 2*time.Minute, 200*time.Millisecond, "the board's nudge worker nudges both owners on its next round")

	p.ExpectText("Nobody else has read 1 message(s) in pact Checkout")
	p.TabTo("Notifications, 1 unread", 20)
	require.Equal(t, loads, documentLoads(p), "the bell and the page updated without a reload")
	require.NotContains(t, p.Text("main"), "pact Launch", "the owner's nudge is not Ana's")

	// Each nudge reaches its owner's inbox alone.
	var told []string
	require.NoError(t, c.d.NewRaw(`SELECT i.human_id || ' ' || n.title FROM inbox i JOIN notifications n ON n.id = i.notification_id
		WHERE n.kind = 'pact_unread' ORDER BY i.human_id`).Scan(ctx, &told))
	require.Equal(t, []string{"ana Nobody else has read 1 message(s) in pact Checkout",
		"owner Nobody else has read 1 message(s) in pact Launch"}, told)

	// Once the delivery worker has settled both notices (Ana's sent; the
	// owner's set aside, nobody to send it to), exactly one email: Ana's,
	// for her pact.
	require.Eventually(t, func() bool {
		return count(`SELECT count(*) FROM notifications WHERE kind = 'pact_unread' AND (sent_at IS NOT NULL OR dead_at IS NOT NULL)`) == 2
	}, 30*time.Second, 100*time.Millisecond, "both nudges settled")
	mails := rcv.received()
	require.Len(t, mails, 1, "one email: Ana's (the owner never switched it on; Bob owns no pact): %v", mails)
	require.Equal(t, []string{ana.Email}, mails[0].To)
	require.True(t, strings.HasSuffix(mails[0].Subject, "Nobody else has read 1 message(s) in pact Checkout"), mails[0].Subject)
	c.requireAdminAPIOnly()
}

// TestConsoleSaysWhenTheBoardSendsNoEmail: on a board without
// PACT_SMTP_URL, Settings says that it sends no email, and every switch
// (one per kind of notice, outbox.Kinds()) is shown disabled; on a board
// with it, the same switches are enabled.
func TestConsoleSaysWhenTheBoardSendsNoEmail(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/settings")
	p.ExpectText("This board sends no email (its operator has not set PACT_SMTP_URL), so these switches are off.")
	require.Len(t, p.Attrs(`input[role="switch"]:disabled`, "role"), len(outbox.Kinds()), "one switch per kind, each disabled")
	require.Empty(t, p.Attrs(`input[role="switch"]:enabled`, "role"))
	c.requireAdminAPIOnly()
}
