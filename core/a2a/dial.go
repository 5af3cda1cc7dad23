package a2a

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrNotPublic refuses a dial to an address that is not a public one: a
// refusal, never worth retrying.
var ErrNotPublic = errors.New("not a public address; remote agents are reached on public addresses only")

// HTTPClient is the client the board calls remote agents with. Unless
// allowPrivate, it dials public addresses only, checked on every dial
// after the name is resolved, so a card or a redirect naming an internal
// host (or a name that resolves to one) reaches nothing inside
// (docs/a2a.md, "Remote agents").
func HTTPClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if !Public(ap.Addr()) {
				return fmt.Errorf("the address %s: %w", ap.Addr(), ErrNotPublic)
			}
			return nil
		}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = d.DialContext
	t.Proxy = nil
	return &http.Client{Transport: t, Timeout: 0}
}

// Public reports whether a is an address on the public internet: not
// loopback, private, link-local, multicast, unspecified or shared.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	// 100.64.0.0/10 (carrier-grade NAT) and 0.0.0.0/8 are no one's public address.
	for _, p := range []netip.Prefix{netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("192.0.0.0/24"), netip.MustParsePrefix("198.18.0.0/15")} {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
