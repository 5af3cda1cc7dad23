package main

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
)

// TLS modes of PACT_SMTP_URL's tls parameter.
const (
	TLSStartTLS = "starttls" // plain connection, then STARTTLS, required (the default)
	TLSImplicit = "tls"      // TLS from the first byte (smtps://, port 465)
	TLSNone     = "none"     // no TLS at all: a relay on the same host or network only
)

// Config is what PACT_SMTP_URL says:
// smtp://user:pass@host:587?from=board@example.com&tls=starttls|tls|none.
type Config struct {
	Host               string
	Port               int
	Username, Password string
	// From is the sender's address, from= (required).
	From string
	// TLS is TLSStartTLS, TLSImplicit or TLSNone.
	TLS string
}

// ParseSMTPURL reads PACT_SMTP_URL. The scheme is smtp, or smtps for
// implicit TLS; the port defaults to 587 (starttls), 465 (tls) or 25
// (none). Errors never repeat the value, which holds a password.
func ParseSMTPURL(raw string) (Config, error) {
	if raw == "" {
		return Config{}, errors.New("not set: expected smtp://user:pass@host:587?from=board@example.com")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || u.Opaque != "" {
		return Config{}, errors.New("expected smtp://[user:pass@]host[:port]?from=<address>[&tls=starttls|tls|none]")
	}
	c := Config{Host: u.Hostname()}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	q := u.Query()
	for k := range q {
		if k != "from" && k != "tls" {
			return Config{}, fmt.Errorf("unknown parameter %q: expected from= and tls=", k)
		}
	}
	from, err := mail.ParseAddress(q.Get("from"))
	if err != nil || from.Name != "" {
		return Config{}, errors.New("from= must be the sender's email address, e.g. from=board@example.com")
	}
	c.From = from.Address
	c.TLS = q.Get("tls")
	switch {
	case c.TLS == "" && u.Scheme == "smtps":
		c.TLS = TLSImplicit
	case c.TLS == "":
		c.TLS = TLSStartTLS
	case c.TLS != TLSStartTLS && c.TLS != TLSImplicit && c.TLS != TLSNone:
		return Config{}, fmt.Errorf("tls=%q: expected starttls, tls or none", c.TLS)
	case u.Scheme == "smtps" && c.TLS != TLSImplicit:
		return Config{}, errors.New("smtps:// is implicit TLS: leave tls= out or use smtp://")
	}
	switch c.TLS {
	case TLSImplicit:
		c.Port = 465
	case TLSNone:
		c.Port = 25
	default:
		c.Port = 587
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Config{}, errors.New("the port must be a number from 1 to 65535")
		}
		c.Port = n
	}
	return c, nil
}
