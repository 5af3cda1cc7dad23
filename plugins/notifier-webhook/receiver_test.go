package main

import (
	"bytes"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// delivery is one request a test receiver got.
type delivery struct {
	header http.Header
	body   []byte
}

// receiver is a local HTTPS endpoint that records deliveries and answers
// with a fixed status and body.
type receiver struct {
	srv *httptest.Server
	got chan delivery
}

func newReceiver(t testing.TB, status int, answer string) *receiver {
	t.Helper()
	return startReceiver(t, httptest.NewTLSServer, status, answer)
}

// newHTTPReceiver is a plain-http receiver answering 200.
func newHTTPReceiver(t testing.TB) *receiver {
	t.Helper()
	return startReceiver(t, httptest.NewServer, http.StatusOK, "ok")
}

func startReceiver(t testing.TB, start func(http.Handler) *httptest.Server, status int, answer string) *receiver {
	t.Helper()
	r := &receiver{got: make(chan delivery, 64)}
	r.srv = start(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		select {
		case r.got <- delivery{header: req.Header.Clone(), body: bytes.Clone(body)}:
		default: // benchmarks do not read them
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// roots trusts the receiver's test certificate.
func (r *receiver) roots() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(r.srv.Certificate())
	return p
}

// localWebhook is a notifier that may reach the receiver: private addresses
// allowed, its certificate trusted, the clock fixed at now.
func localWebhook(r *receiver, now time.Time) *Webhook {
	return New(Options{AllowPrivate: true, RootCAs: r.roots(), Now: func() time.Time { return now }})
}

func (r *receiver) next(t testing.TB) delivery {
	t.Helper()
	select {
	case d := <-r.got:
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("the receiver got nothing")
		return delivery{}
	}
}
