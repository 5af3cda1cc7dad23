package mcpserve

// DNS rebinding (docs/security.md §14, SEC-014): a web page whose name is
// rebound to the board's address reaches the board from the victim's
// browser, but the browser still sends the page's name as Host and the
// page's origin as Origin. The board serves MCP only to requests that name
// it: PACT_PUBLIC_URL's host, or a loopback name on a connection that came
// in on a loopback address. The SDK's own check (DisableLocalhostProtection
// is set) would refuse the public Host on a loopback connection, which is
// what a reverse proxy on the same machine forwards.

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// hostGuard knows the names the board answers to. Its zero value (no
// public URL) accepts loopback names on loopback connections only.
type hostGuard struct {
	// scheme and host are PACT_PUBLIC_URL's, host as lower-case host:port
	// with the scheme's default port written out.
	scheme, host string
}

func newHostGuard(publicURL string) hostGuard {
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" {
		return hostGuard{}
	}
	scheme := strings.ToLower(u.Scheme)
	return hostGuard{scheme: scheme, host: hostPort(scheme, u.Host)}
}

// guard wraps next with the check: a foreign Host or Origin is answered
// 403 forbidden before next (and so before the token is read).
func (g hostGuard) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := g.refusal(r); e != nil {
			kernel.WriteError(w, http.StatusForbidden, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refusal returns why r does not name the board, or nil when it does.
func (g hostGuard) refusal(r *http.Request) *errs.Error {
	loopback := loopbackConn(r)
	if !g.names(g.scheme, r.Host, loopback) {
		return errs.E(errs.Forbidden, "Host %q is not this board's (PACT_PUBLIC_URL)", r.Host)
	}
	origin := r.Header.Get("Origin")
	if origin == "" { // not sent by a browser, or a same-origin GET
		return nil
	}
	if !g.namesOrigin(origin, loopback) {
		return errs.E(errs.Forbidden, "Origin %q is not this board's (PACT_PUBLIC_URL)", origin)
	}
	return nil
}

// namesOrigin reports whether origin is an http(s) origin the board
// answers to; "null" and other schemes are not.
func (g hostGuard) namesOrigin(origin string, loopback bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return (scheme == "http" || scheme == "https") && g.names(scheme, u.Host, loopback)
}

// names reports whether host (as sent, with the given scheme) is the
// board's: the public host and port, or on a loopback connection any
// loopback name at any port (a loopback name reaches only this machine).
func (g hostGuard) names(scheme, host string, loopback bool) bool {
	if loopback && isLoopbackName(hostname(host)) {
		return true
	}
	return g.host != "" && scheme == g.scheme && hostPort(scheme, host) == g.host
}

// loopbackConn reports whether r came in on a loopback address.
func loopbackConn(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

func isLoopbackName(name string) bool {
	return name == "localhost" || name == "127.0.0.1" || name == "::1"
}

// hostname returns host's name, lower case, without port or brackets.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

// hostPort returns host as lower-case name:port, the scheme's default
// port written out when host has none, so board.example and
// board.example:443 compare equal over https.
func hostPort(scheme, host string) string {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, defaultPort(scheme)
	}
	return net.JoinHostPort(strings.ToLower(strings.Trim(name, "[]")), port)
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}
