package main

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAddressKinds(t *testing.T) {
	for _, tt := range []struct{ addr, kind string }{
		{"93.184.216.34", ""},
		{"2606:2800:220:1:248:1893:25c8:1946", ""},
		{"8.8.8.8", ""},
		{"127.0.0.1", "loopback"},
		{"127.9.9.9", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"fc00::1", "private"},
		{"fd12:3456::1", "private"},
		{"169.254.169.254", "link-local"}, // cloud metadata
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "link-local"},
		{"239.1.2.3", "multicast"},
		{"ff02::1", "link-local"},
		{"ff05::1", "multicast"},
		{"100.64.0.1", "reserved"},
		{"0.1.2.3", "reserved"},
		{"192.0.2.10", "reserved"},
		{"198.18.0.1", "reserved"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.255", "reserved"},
		{"2001:db8::1", "reserved"},
		{"::7f00:1", "reserved"},            // IPv4-compatible
		{"64:ff9b::7f00:1", "loopback"},     // NAT64 of 127.0.0.1
		{"64:ff9b::a00:1", "private"},       // NAT64 of 10.0.0.1
		{"64:ff9b::5db8:d822", ""},          // NAT64 of a public address
		{"2002:c0a8:101::1", "private"},     // 6to4 of 192.168.1.1
		{"2002:5db8:d822::1", ""},           // 6to4 of a public address
		{"2001:0:4136:e378::1", "reserved"}, // Teredo
	} {
		t.Run(tt.addr, func(t *testing.T) {
			require.Equal(t, tt.kind, kind(netip.MustParseAddr(tt.addr)))
		})
	}
}

func TestPolicy(t *testing.T) {
	public, private := netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.1")
	strict, open := policy{}, policy{allowPrivate: true}

	require.NoError(t, strict.allow(public, false))
	require.ErrorContains(t, strict.allow(private, false), "private address; the operator may allow these with PACT_WEBHOOK_ALLOW_PRIVATE=1")
	require.ErrorContains(t, strict.allow(public, true), "plain http is refused")
	require.ErrorContains(t, strict.allow(private, true), "plain http is refused")

	require.NoError(t, open.allow(public, false))
	require.NoError(t, open.allow(private, false))
	require.NoError(t, open.allow(private, true), "plain http stays inside a private network")
	require.ErrorContains(t, open.allow(public, true), "plain http is accepted only to non-public addresses")
}

// fakeDNS answers LookupNetIP from a table; a missing name is NXDOMAIN.
type fakeDNS map[string][]string

func (f fakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if host == "servfail.example" {
		return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
	}
	var out []netip.Addr
	for _, a := range f[host] {
		out = append(out, netip.MustParseAddr(a))
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

func TestCheckHost(t *testing.T) {
	dns := fakeDNS{
		"public.example": {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
		"mixed.example":  {"93.184.216.34", "10.0.0.7"},
		"inside.example": {"192.168.0.10"},
	}
	p := policy{}
	ctx := t.Context()
	require.NoError(t, p.checkHost(ctx, dns, "public.example", false))
	require.NoError(t, p.checkHost(ctx, dns, "93.184.216.34", false))

	var blocked *blockedError
	for _, host := range []string{"mixed.example", "inside.example", "127.0.0.1", "::1", "169.254.169.254", "nowhere.example"} {
		err := p.checkHost(ctx, dns, host, false)
		require.True(t, errors.As(err, &blocked), "%s: %v", host, err)
	}
	require.ErrorContains(t, p.checkHost(ctx, dns, "nowhere.example", false), "host nowhere.example does not resolve")
	err := p.checkHost(ctx, dns, "servfail.example", false)
	require.Error(t, err)
	require.False(t, errors.As(err, &blocked), "a DNS outage is not a refusal")
}
