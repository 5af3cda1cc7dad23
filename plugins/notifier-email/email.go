package main

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// Version is the plugin's version, reported in Capabilities.
const Version = "1.0.0"

// Email is the notifier: each delivery is one email to the one person the
// destination names (mailto:<address>), through the SMTP server of its
// Config. The board makes one destination per person a notice concerns who
// chose its kind (docs/notifications.md, "Email"), so the plugin decides
// nothing about who is told.
type Email struct {
	cfg  Config
	cat  *catalog
	tls  *tls.Config
	wait time.Duration
}

// Options are the plugin's settings beyond the SMTP server.
type Options struct {
	// TLS, when set, is the TLS configuration to check the server with
	// (tests trust their own server's certificate); nil: the system's roots.
	TLS *tls.Config
	// Timeout bounds connecting and each SMTP command (15 s).
	Timeout time.Duration
}

// New returns the notifier for cfg.
func New(cfg Config, o Options) *Email {
	t := o.TLS
	if t == nil {
		t = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	t = t.Clone()
	t.ServerName = cfg.Host
	wait := o.Timeout
	if wait <= 0 {
		wait = 15 * time.Second
	}
	return &Email{cfg: cfg, cat: mustCatalog(), tls: t, wait: wait}
}

// Capabilities names the plugin; it takes every kind.
func (e *Email) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "notifier-email", Version: Version}, nil
}

// PrepareDestination accepts mailto:<address> only.
func (e *Email) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	addr, err := recipient(d.URL)
	if err != nil {
		return nil, err
	}
	d.URL = "mailto:" + addr
	return &d, nil
}

// recipient is the address of a mailto: URL; errs.InvalidRequest for
// anything else.
func recipient(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err == nil && u.Scheme == "mailto" && u.Opaque != "" && !strings.ContainsAny(u.Opaque, ",?") {
		if a, err := mail.ParseAddress(u.Opaque); err == nil && a.Name == "" {
			return a.Address, nil
		}
	}
	return "", errs.E(errs.InvalidRequest, "an email destination is mailto:<one address>")
}

// Deliver sends n to the destination's address. A permanent refusal by the
// server (a 5xx reply) is errs.InvalidRequest, so the board records it and
// never retries; a temporary one (4xx), or no answer at all, is
// errs.Unavailable, retried.
func (e *Email) Deliver(ctx context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	to, err := recipient(d.URL)
	if err != nil {
		return nil, err
	}
	m, err := e.message(to, d.Options["name"], n)
	if err != nil {
		return nil, err
	}
	c, err := e.client()
	if err != nil {
		return nil, errs.E(errs.Unavailable, "the mail client: %v", err)
	}
	if err := c.DialAndSendWithContext(ctx, m); err != nil {
		return nil, classify(err)
	}
	return &notifier.Receipt{Detail: "accepted by " + e.cfg.Host}, nil
}

// classify turns a sending error into the board's vocabulary.
func classify(err error) error {
	var se *gomail.SendError
	if errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500 && se.ErrorCode() < 600 {
		return errs.E(errs.InvalidRequest, "the mail server refused it for good: %v", err)
	}
	return errs.E(errs.Unavailable, "sending failed; worth retrying: %v", err)
}

// client is an SMTP client for e's server, as its Config says.
func (e *Email) client() (*gomail.Client, error) {
	opts := []gomail.Option{gomail.WithPort(e.cfg.Port), gomail.WithTimeout(e.wait), gomail.WithTLSConfig(e.tls)}
	switch e.cfg.TLS {
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if e.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(e.cfg.Username), gomail.WithPassword(e.cfg.Password))
	}
	return gomail.NewClient(e.cfg.Host, opts...)
}

// message writes n for to (name: how to greet them) in n.Language.
func (e *Email) message(to, name string, n notifier.Notification) (*gomail.Msg, error) {
	lang := n.Language
	head := e.cat.text(lang, headline(n.Kind), nil)
	m := gomail.NewMsg()
	if err := m.From(e.cfg.From); err != nil {
		return nil, errs.E(errs.Unavailable, "the sender %q: %v", e.cfg.From, err)
	}
	if err := m.To(to); err != nil {
		return nil, errs.E(errs.InvalidRequest, "the recipient: %v", err)
	}
	subject := head
	if t := strings.TrimSpace(n.Title); t != "" {
		subject += ": " + t
	}
	m.Subject(subject)
	m.SetDate()
	// The same notice to the same person has the same Message-ID on every
	// attempt, so a repeat after a lost answer can be recognised.
	sum := sha256.Sum256([]byte(strings.ToLower(to)))
	m.SetMessageIDWithValue(fmt.Sprintf("%s.%s@pact-board", n.IdempotencyKey, hex.EncodeToString(sum[:6])))
	m.SetGenHeader("Auto-Submitted", "auto-generated") // no auto-replies to the board
	m.SetGenHeader("Content-Language", cmpOr(lang, "en"))
	m.SetBodyString(gomail.TypeTextPlain, e.body(lang, name, head, n))
	return m, nil
}

// body is the email's text: greeting, headline, title and detail, the
// brief's sections, the links, and why the person gets it.
func (e *Email) body(lang, name, head string, n notifier.Notification) string {
	var b strings.Builder
	if name != "" {
		b.WriteString(e.cat.text(lang, msgGreeting, map[string]any{"Name": name}) + "\n\n")
	}
	b.WriteString(head + "\n\n")
	if t := strings.TrimSpace(n.Title); t != "" {
		b.WriteString(t + "\n")
	}
	if d := strings.TrimSpace(n.Detail); d != "" {
		b.WriteString("\n" + d + "\n")
	}
	var settings string
	var links []string
	for _, l := range n.Links {
		if l.Label == "Email settings" {
			settings = e.cat.linkText(lang, l.Label) + ": " + l.URL
			continue
		}
		links = append(links, e.cat.linkText(lang, l.Label)+": "+l.URL)
	}
	if len(links) > 0 {
		b.WriteString("\n" + strings.Join(links, "\n") + "\n")
	}
	b.WriteString("\n-- \n" + e.cat.text(lang, msgWhy, nil) + "\n")
	if settings != "" {
		b.WriteString(settings + "\n")
	}
	return b.String()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
