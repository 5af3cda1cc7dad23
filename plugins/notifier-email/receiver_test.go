package main

import (
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
)

// receiver is a real SMTP server (emersion/go-smtp) on a loopback port: it
// keeps every message it accepts, refuses the addresses in refuse for good
// (550) and those in later for now (451).
type receiver struct {
	addr  string
	mu    sync.Mutex
	mails []received
	// refuse and later are fixed before the server starts.
	refuse, later map[string]bool
	got           chan received
}

// received is one accepted message, decoded.
type received struct {
	From    string
	To      []string
	Header  mail.Header
	Subject string
	Body    string
}

func newReceiver(t *testing.T, refuse, later []string) *receiver {
	t.Helper()
	r := &receiver{refuse: map[string]bool{}, later: map[string]bool{}, got: make(chan received, 16)}
	for _, a := range refuse {
		r.refuse[a] = true
	}
	for _, a := range later {
		r.later[a] = true
	}
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

// url is PACT_SMTP_URL for this receiver, without TLS.
func (r *receiver) url() string {
	return "smtp://" + r.addr + "?from=board@example.com&tls=none"
}

func (r *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case m := <-r.got:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no email arrived")
		return received{}
	}
}

func (r *receiver) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{r: r}, nil }

type session struct {
	r    *receiver
	from string
	to   []string
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	switch {
	case s.r.refuse[to]:
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	case s.r.later[to]:
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	var body io.Reader = m.Body
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		return err
	}
	got := received{From: s.from, To: s.to, Header: m.Header, Subject: subject, Body: string(raw)}
	s.r.mu.Lock()
	s.r.mails = append(s.r.mails, got)
	s.r.mu.Unlock()
	s.r.got <- got
	return nil
}
