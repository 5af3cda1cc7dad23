package a2a

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOnlyPublicAddressesAreDialedUnlessAllowed(t *testing.T) {
	for addr, public := range map[string]bool{"8.8.8.8": true, "2606:4700::1111": true, "127.0.0.1": false, "::1": false,
		"10.1.2.3": false, "192.168.0.1": false, "172.16.0.1": false, "169.254.169.254": false, "100.64.0.1": false,
		"0.0.0.0": false, "::ffff:127.0.0.1": false, "fe80::1": false, "fc00::1": false} {
		require.Equal(t, public, Public(netip.MustParseAddr(addr)), addr)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	_, err := HTTPClient(false).Do(req)
	require.ErrorIs(t, err, ErrNotPublic)
	require.False(t, Transient(err), "a refused address is not retried")
	resp, err := HTTPClient(true).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
}
