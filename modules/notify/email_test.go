package notify_test

import (
	"context"
	"io"
	"mime"
	"net"
	"net/http"
	"net/mail"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/modules/notify"
)

// Email end to end (docs/notifications.md, "Email"): the real
// notifier-email plugin, built and run as the board runs it (a subprocess
// under the plugin host, PACT_SMTP_URL in its environment), sending to a
// real SMTP server (emersion/go-smtp).

// mailbox is a real SMTP server on a loopback port that keeps what it
// accepts. It refuses the addresses of refuse for good (550), and those of
// later for now (451), as many times as later says.
type mailbox struct {
	addr   string
	mu     sync.Mutex
	mails  []mailed
	rcpts  map[string]int // RCPT TO attempts per address
	refuse map[string]bool
	later  map[string]int
}

// mailed is one accepted email.
type mailed struct {
	To      []string
	Subject string
	Header  mail.Header
}

func newMailbox(t *testing.T, refuse []string, later map[string]int) *mailbox {
	t.Helper()
	m := &mailbox{rcpts: map[string]int{}, refuse: map[string]bool{}, later: map[string]int{}}
	for _, a := range refuse {
		m.refuse[a] = true
	}
	for a, n := range later {
		m.later[a] = n
	}
	s := smtp.NewServer(m)
	s.Domain = "mx.test"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	m.addr = l.Addr().String()
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return m
}

// received is every accepted email's recipients, in order.
func (m *mailbox) received() (to [][]string, subjects []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, x := range m.mails {
		to = append(to, x.To)
		subjects = append(subjects, x.Subject)
	}
	return to, subjects
}

func (m *mailbox) attempts(addr string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rcpts[addr]
}

func (m *mailbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &mailSession{m: m}, nil }

type mailSession struct {
	m  *mailbox
	to []string
}

func (s *mailSession) Reset()                               { s.to = nil }
func (s *mailSession) Logout() error                        { return nil }
func (s *mailSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.rcpts[to]++
	switch {
	case s.m.refuse[to]:
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	case s.m.later[to] > 0:
		s.m.later[to]--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
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
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.mails = append(s.m.mails, mailed{To: s.to, Subject: subject, Header: msg.Header})
	return nil
}

// emailHost runs the real notifier-email plugin as "email", sending to m.
func emailHost(t *testing.T, m *mailbox) *pluginhost.Host {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "notifier-email"), "./plugins/notifier-email")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	host, err := pluginhost.New([]pluginhost.Spec{{Name: "email", Kind: "notifier", Binary: "notifier-email",
		Env: map[string]string{"PACT_SMTP_URL": "smtp://" + m.addr + "?from=board@example.com&tls=none"}}},
		&pluginhost.Options{Dir: dir})
	require.NoError(t, err)
	host.Start()
	t.Cleanup(func() { _ = host.Close() })
	return host
}

// emailBoard is the inbox's cast (inboxBoard) with the notify module behind
// the Admin API and a delivering service, both emailing through the real
// plugin to m; everyone has an address (<id>@example.com).
type emailBoard struct {
	*inboxBoard
	svc *notify.Service
	box *mailbox
}

func newEmailBoard(t *testing.T, refuse []string, later map[string]int) *emailBoard {
	t.Helper()
	box := newMailbox(t, refuse, later)
	host := emailHost(t, box)
	// Retries wait an hour: a test makes them due itself (makeDue), so the
	// board's own delivery worker never retries between two of its checks.
	opts := notify.Options{Notifiers: host, ConsoleURL: "https://board.example.com/console", RetryBase: time.Hour}
	b := newInboxBoardWith(t, notify.New(opts))
	b.Exec(`UPDATE humans SET email = id || '@example.com'`)
	return &emailBoard{inboxBoard: b, svc: notify.NewService(b.DB, nil, &opts), box: box}
}

// choose sets who's email choices through the Admin API.
func (b *emailBoard) choose(t *testing.T, who, kinds string) {
	t.Helper()
	r := b.Admin(who, http.MethodPut, "/me/email", `{"kinds": `+kinds+`}`)
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
}

func (b *emailBoard) deliver(t *testing.T) {
	t.Helper()
	_, err := b.svc.DeliverDue(context.Background())
	require.NoError(t, err)
}

// A nudge (pact_unread, named to the pact's owner) reaches that person's
// bell and email, and nobody else's, though others chose its kind too.
func TestANudgeReachesOnePersonsBellAndEmail(t *testing.T) {
	b := newEmailBoard(t, nil, nil)
	for _, who := range []string{"ana", "val", "vic", "bo"} {
		b.choose(t, who, `["pact_unread"]`)
	}
	id := enqueue(t, b.DB, outbox.Notification{Kind: outbox.PactUnread, HumanID: "val", ProjectID: "web",
		Title: "Nobody read message 3 of PACT-7"})
	require.Equal(t, []string{"val"}, b.addressed(t, id), "the bell: val's inbox alone")
	b.deliver(t)
	to, subjects := b.box.received()
	require.Equal(t, [][]string{{"val@example.com"}}, to, "the email: val's alone, once")
	require.Equal(t, []string{"Nobody has read a pact message yet: Nobody read message 3 of PACT-7"}, subjects)
	s := state(t, b.DB, id)
	require.NotNil(t, s.SentAt, "sent: %v", s.LastError)

	// Delivered again (a retry, a second worker), it is not emailed again.
	b.Exec(`UPDATE notifications SET sent_at = NULL, next_attempt_at = now() WHERE id = ?`, id)
	b.deliver(t)
	to, _ = b.box.received()
	require.Len(t, to, 1, "once")
}

// Email is off until a person turns a kind on, and a kind turned on sends
// that kind only.
func TestEmailFollowsEachPersonsChoices(t *testing.T) {
	b := newEmailBoard(t, nil, nil)
	r := b.Admin("ana", http.MethodGet, "/me/email", "")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, true, r.Body["sending"])
	require.Equal(t, "ana@example.com", r.Body["address"])
	kinds := r.Body["kinds"].([]any)
	require.Len(t, kinds, len(outbox.Kinds()), "every kind is listed")
	for _, k := range kinds {
		require.Equal(t, false, k.(map[string]any)["email"], "off by default: %v", k)
	}

	// Nobody chose anything: an approval (ana and val's) is emailed to nobody.
	enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "approve 1"})
	b.deliver(t)
	to, _ := b.box.received()
	require.Empty(t, to)

	// ana turns approvals on, val turns messages on: the next approval goes to
	// ana alone.
	b.choose(t, "ana", `["approval_needed"]`)
	b.choose(t, "val", `["message"]`)
	enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "approve 2"})
	b.deliver(t)
	to, subjects := b.box.received()
	require.Equal(t, [][]string{{"ana@example.com"}}, to)
	require.Equal(t, []string{"Waiting for your approval: approve 2"}, subjects)

	// A kind ana did not choose is not emailed to her.
	enqueue(t, b.DB, outbox.Notification{Kind: outbox.TaskClosed, ProjectID: "web", TaskID: b.task, AgentID: "code-web", Title: "done"})
	b.deliver(t)
	to, _ = b.box.received()
	require.Len(t, to, 1)

	// Turning everything off stops it again.
	b.choose(t, "ana", `[]`)
	enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "approve 3"})
	b.deliver(t)
	to, _ = b.box.received()
	require.Len(t, to, 1)
}

// Each person's choices are their own: a viewer sets theirs, nobody sets
// another's, and an unknown kind changes nothing.
func TestEmailChoicesAreEachPersonsOwn(t *testing.T) {
	b := newEmailBoard(t, nil, nil)
	b.choose(t, "vic", `["brief", "message"]`)
	on := func(who string) []string {
		r := b.Admin(who, http.MethodGet, "/me/email", "")
		require.Equal(t, http.StatusOK, r.Status, r.Raw)
		var kinds []string
		for _, k := range r.Body["kinds"].([]any) {
			if k.(map[string]any)["email"] == true {
				kinds = append(kinds, k.(map[string]any)["kind"].(string))
			}
		}
		return kinds
	}
	require.Equal(t, []string{"brief", "message"}, on("vic"))
	require.Empty(t, on("ana"), "vic's choices are vic's")
	require.Empty(t, on("bo"))
	r := b.Admin("vic", http.MethodPut, "/me/email", `{"kinds": ["brief", "gossip"]}`)
	require.Equal(t, http.StatusBadRequest, r.Status, r.Raw)
	require.Equal(t, []string{"brief", "message"}, on("vic"), "a refused change changes nothing")
	require.Equal(t, http.StatusUnauthorized, b.Admin("", http.MethodGet, "/me/email", "").Status)
}

// The email is in its recipient's language, whatever the organization's.
func TestEmailIsInEachRecipientsLanguage(t *testing.T) {
	b := newEmailBoard(t, nil, nil)
	b.Exec(`UPDATE humans SET language = 'th' WHERE id = 'val'`)
	b.choose(t, "ana", `["approval_needed"]`)
	b.choose(t, "val", `["approval_needed"]`)
	enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "Deploy"})
	b.deliver(t)
	b.box.mu.Lock()
	defer b.box.mu.Unlock()
	got := map[string]string{}
	for _, m := range b.box.mails {
		got[m.To[0]] = m.Subject
	}
	require.Equal(t, map[string]string{"ana@example.com": "Waiting for your approval: Deploy", "val@example.com": "รอคุณอนุมัติ: Deploy"}, got)
}

// A recipient the mail server refuses for good (550) is recorded and never
// tried again, while one it refuses for now (451) is retried until it
// takes the email; a person with no address is recorded and skipped.
func TestAPermanentRefusalIsRecordedAndNotRetried(t *testing.T) {
	b := newEmailBoard(t, []string{"ana@example.com"}, map[string]int{"val@example.com": 1})
	b.Exec(`UPDATE humans SET email = NULL WHERE id = 'kim'`)
	for _, who := range []string{"ana", "val", "kim"} {
		b.choose(t, who, `["approval_needed"]`)
	}
	id := enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "approve"})
	b.deliver(t)
	s := state(t, b.DB, id)
	require.Nil(t, s.SentAt)
	require.Nil(t, s.DeadAt, "val's is worth retrying")
	require.Contains(t, *s.LastError, "451")

	makeDue(t, b.DB)
	b.deliver(t)
	s = state(t, b.DB, id)
	require.NotNil(t, s.SentAt, "val has it now: %v", s.LastError)
	require.Equal(t, 1, b.box.attempts("ana@example.com"), "ana's refusal is not retried")
	require.Equal(t, 2, b.box.attempts("val@example.com"))
	to, _ := b.box.received()
	require.Equal(t, [][]string{{"val@example.com"}}, to)

	type outcome struct {
		Destination string  `bun:"destination"`
		Sent        bool    `bun:"sent"`
		Detail      *string `bun:"detail"`
	}
	var got []outcome
	require.NoError(t, b.DB.NewRaw(`SELECT destination, sent_at IS NOT NULL AS sent, detail FROM notification_deliveries
		WHERE notification_id = ? ORDER BY destination`, id).Scan(context.Background(), &got))
	require.Len(t, got, 3)
	require.Equal(t, "email:ana", got[0].Destination)
	require.False(t, got[0].Sent)
	require.Contains(t, *got[0].Detail, "550", "the server's refusal is recorded")
	require.Equal(t, "email:kim", got[1].Destination)
	require.False(t, got[1].Sent)
	require.Contains(t, *got[1].Detail, notify.NoEmailAddress, "why kim got nothing")
	require.Equal(t, "email:val", got[2].Destination)
	require.True(t, got[2].Sent)
}

// Without the email plugin nothing is emailed, and people are told so.
func TestNoEmailWithoutThePlugin(t *testing.T) {
	b := newInboxBoardWith(t, notify.New(notify.Options{}))
	r := b.Admin("ana", http.MethodGet, "/me/email", "")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, false, r.Body["sending"])
	require.Equal(t, "ana@example.com", r.Body["address"])
}
