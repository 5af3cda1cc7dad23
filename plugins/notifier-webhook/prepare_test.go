package main

import (
	"bytes"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

var dns = fakeDNS{
	"hooks.example.com":   {"93.184.216.34"},
	"intranet.example":    {"10.20.30.40"},
	"metadata.example":    {"169.254.169.254"},
	"dual.example":        {"93.184.216.34", "fd00::1"},
	"localhost":           {"127.0.0.1", "::1"},
	"rebinding.example":   {"93.184.216.34"},
	"public-v6.example":   {"2606:2800:220:1:248:1893:25c8:1946"},
	"loopback6.example":   {"::1"},
	"nat64-lo.example":    {"64:ff9b::7f00:1"},
	"mapped-lo.example":   {"::ffff:127.0.0.1"},
	"unspecified.example": {"0.0.0.0"},
}

func TestPrepareGeneratesASecret(t *testing.T) {
	w := New(Options{Resolver: dns, Rand: bytes.NewReader(bytes.Repeat([]byte{0xAB}, 32))})
	d, err := w.PrepareDestination(t.Context(), notifier.Destination{URL: " https://hooks.example.com/in?token=t#frag ", Options: map[string]string{"x": "y"}})
	require.NoError(t, err)
	require.Equal(t, "https://hooks.example.com/in?token=t", d.URL)
	require.Equal(t, "whsec_q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s=", d.Secret)
	require.Equal(t, map[string]string{"x": "y"}, d.Options)
	key, err := parseSecret(d.Secret)
	require.NoError(t, err)
	require.Len(t, key, 32)

	random, err := New(Options{Resolver: dns}).PrepareDestination(t.Context(), notifier.Destination{URL: "https://hooks.example.com/in"})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(random.Secret, "whsec_"))
	require.NotEqual(t, d.Secret, random.Secret)
}

func TestPrepareKeepsAGivenSecret(t *testing.T) {
	w := New(Options{Resolver: dns})
	d, err := w.PrepareDestination(t.Context(), notifier.Destination{URL: "https://hooks.example.com/in", Secret: testSecret})
	require.NoError(t, err)
	require.Equal(t, testSecret, d.Secret)

	for _, s := range []string{"whsec_", "whsec_c2hvcnQ=", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", "whsec_" + strings.Repeat("QUFB", 30)} {
		_, err := w.PrepareDestination(t.Context(), notifier.Destination{URL: "https://hooks.example.com/in", Secret: s})
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), s)
		require.ErrorContains(t, err, "whsec_ followed by base64 of 24 to 64 bytes")
	}
}

func TestPrepareRefuses(t *testing.T) {
	w := New(Options{Resolver: dns})
	for _, tt := range []struct{ url, msg string }{
		{"http://hooks.example.com/in", "must use https"},
		{"ftp://hooks.example.com/in", "must use https"},
		{"hooks.example.com/in", "absolute https:// URL"},
		{"https:///in", "absolute https:// URL"},
		{"", "absolute https:// URL"},
		{"https://hooks.example.com/" + strings.Repeat("a", maxURL), "absolute https:// URL"},
		{"https://user:pw@hooks.example.com/in", "user name or password"},
		{"https://127.0.0.1/in", "127.0.0.1: loopback address; the operator may allow these with PACT_WEBHOOK_ALLOW_PRIVATE=1"},
		{"https://[::1]:8443/in", "loopback address"},
		{"https://localhost/in", "loopback address"},
		{"https://10.0.0.8/in", "private address"},
		{"https://intranet.example/in", "10.20.30.40: private address"},
		{"https://metadata.example/latest", "169.254.169.254: link-local address"},
		{"https://dual.example/in", "fd00::1: private address"},
		{"https://loopback6.example/in", "loopback address"},
		{"https://nat64-lo.example/in", "loopback address"},
		{"https://mapped-lo.example/in", "loopback address"},
		{"https://unspecified.example/in", "unspecified address"},
		{"https://nowhere.example/in", "host nowhere.example does not resolve"},
	} {
		t.Run(tt.url, func(t *testing.T) {
			_, err := w.PrepareDestination(t.Context(), notifier.Destination{URL: tt.url})
			require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
			require.ErrorContains(t, err, tt.msg)
		})
	}
	_, err := w.PrepareDestination(t.Context(), notifier.Destination{URL: "https://servfail.example/in"})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "a DNS outage is worth retrying")
	_, err = w.PrepareDestination(t.Context(), notifier.Destination{URL: "https://public-v6.example/in"})
	require.NoError(t, err)
}

func TestPrepareWhenPrivateAllowed(t *testing.T) {
	w := New(Options{Resolver: dns, AllowPrivate: true})
	for _, u := range []string{"https://127.0.0.1/in", "https://intranet.example/in", "http://intranet.example/in", "http://localhost:8080/in", "https://hooks.example.com/in"} {
		_, err := w.PrepareDestination(t.Context(), notifier.Destination{URL: u})
		require.NoError(t, err, u)
	}
	_, err := w.PrepareDestination(t.Context(), notifier.Destination{URL: "http://hooks.example.com/in"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "plain http is accepted only to non-public addresses")
}

// The check is made again on the address actually dialed: a destination
// that was never prepared, or whose name now resolves somewhere else, is
// refused at delivery and the receiver sees nothing.
func TestDeliveryChecksTheAddressDialed(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "ok")
	port := netip.MustParseAddrPort(r.srv.Listener.Addr().String()).Port()

	strict := New(Options{RootCAs: r.roots(), Resolver: fakeDNS{"localhost": {"93.184.216.34"}}})
	for _, u := range []string{r.srv.URL, "https://localhost:" + strconv.Itoa(int(port)) + "/in"} {
		_, err := strict.Deliver(t.Context(), notifier.Destination{URL: u, Secret: testSecret}, sample())
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), u)
		require.ErrorContains(t, err, "loopback address; the operator may allow these with PACT_WEBHOOK_ALLOW_PRIVATE=1")
	}

	// DNS rebinding: at preparation the name was public (the fake resolver);
	// at delivery the system resolver says 127.0.0.1.
	d, err := strict.PrepareDestination(t.Context(), notifier.Destination{URL: "https://localhost:" + strconv.Itoa(int(port)) + "/in"})
	require.NoError(t, err)
	_, err = strict.Deliver(t.Context(), *d, sample())
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "loopback address")
	require.Empty(t, r.got, "nothing reached the receiver")

	// Plain http is refused unless the operator allowed private addresses.
	plain := newHTTPReceiver(t)
	_, err = New(Options{}).Deliver(t.Context(), notifier.Destination{URL: plain.srv.URL, Secret: testSecret}, sample())
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "must use https")
	require.Empty(t, plain.got)
}

func TestPlainHTTPInsideWhenAllowed(t *testing.T) {
	plain := newHTTPReceiver(t)
	_, err := New(Options{AllowPrivate: true}).Deliver(t.Context(), notifier.Destination{URL: plain.srv.URL, Secret: testSecret}, sample())
	require.NoError(t, err)
	verify(t, testSecret, plain.next(t))
}
