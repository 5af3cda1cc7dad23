package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// reserved lists the non-public ranges netip's predicates do not cover:
// shared address space, documentation, benchmarking, "this network",
// future use, and IPv6 blocks that are not global unicast.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
	netip.MustParsePrefix("5f00::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// IPv6 ranges that carry an IPv4 address, which decides instead.
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixto4 = netip.MustParsePrefix("2002::/16")
)

// kind names why a is not a public address, or returns "" when it is.
func kind(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case nat64.Contains(a):
		b := a.As16()
		return kind(netip.AddrFrom4([4]byte(b[12:16])))
	case sixto4.Contains(a):
		b := a.As16()
		return kind(netip.AddrFrom4([4]byte(b[2:6])))
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return "reserved"
		}
	}
	return ""
}

// blockedError is a refusal to reach an address. It is a permanent refusal
// (errs.InvalidRequest), not an outage: retrying reaches the same address.
type blockedError struct {
	addr   netip.Addr
	reason string
}

func (e *blockedError) Error() string {
	if !e.addr.IsValid() {
		return e.reason
	}
	return fmt.Sprintf("%s: %s", e.addr, e.reason)
}

// policy decides which addresses a delivery may reach.
type policy struct {
	// allowPrivate is PACT_WEBHOOK_ALLOW_PRIVATE: non-public addresses are
	// allowed, and so is plain http to them.
	allowPrivate bool
}

// allow returns a *blockedError when a may not be reached. Over plain http
// (plain) only non-public addresses are allowed, and only when the operator
// allowed them: notifications never cross the internet unencrypted.
func (p policy) allow(a netip.Addr, plain bool) error {
	k := kind(a)
	switch {
	case plain && !p.allowPrivate:
		return &blockedError{a, "plain http is refused; use https"}
	case plain && k == "":
		return &blockedError{a, "plain http is accepted only to non-public addresses; use https"}
	case k != "" && !p.allowPrivate:
		return &blockedError{a, k + " address; the operator may allow these with PACT_WEBHOOK_ALLOW_PRIVATE=1"}
	}
	return nil
}

// dialer checks the address it actually connects to, after DNS resolution,
// on every connection: a name that resolved to a public address when the
// destination was prepared and to 127.0.0.1 now (DNS rebinding) is refused
// here.
func (p policy) dialer(plain bool) *net.Dialer {
	return &net.Dialer{
		Timeout:   dialTimeout,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &blockedError{netip.Addr{}, "unparsable address " + address}
			}
			return p.allow(ap.Addr(), plain)
		},
	}
}

// resolver is the part of *net.Resolver PrepareDestination uses; tests pass
// a fake one to stand for DNS.
type resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// checkHost resolves host and refuses it when any of its addresses may not
// be reached: the dialer may pick any of them.
func (p policy) checkHost(ctx context.Context, r resolver, host string, plain bool) error {
	addrs := []netip.Addr{}
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else {
		addrs, err = r.LookupNetIP(ctx, "ip", host)
		if err != nil {
			var dns *net.DNSError
			if errors.As(err, &dns) && dns.IsNotFound {
				return &blockedError{netip.Addr{}, "host " + host + " does not resolve"}
			}
			return err
		}
	}
	for _, a := range addrs {
		if err := p.allow(a, plain); err != nil {
			return err
		}
	}
	return nil
}
