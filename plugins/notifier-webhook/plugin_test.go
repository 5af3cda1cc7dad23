package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
	"github.com/pactboard/pact/sdk/plugintest"
)

// The plugin as the host sees it: every call over real gRPC, in-process.

func TestPluginPreparesAndDeliversSigned(t *testing.T) {
	r := newReceiver(t, http.StatusAccepted, "queued")
	p := plugintest.Notifier(t, localWebhook(r, t0))

	caps, err := p.Capabilities(t.Context())
	require.NoError(t, err)
	require.Equal(t, "notifier-webhook", caps.Name)

	d, err := p.PrepareDestination(t.Context(), notifier.Destination{URL: r.srv.URL + "/in"})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(d.Secret, "whsec_"), "the generated secret comes back to the board")

	rc, err := p.Deliver(t.Context(), *d, sample())
	require.NoError(t, err)
	require.Equal(t, 202, rc.Status)
	require.Equal(t, "queued", rc.Detail)
	got := r.next(t)
	require.Equal(t, "ntf_42_x", got.header.Get("webhook-id"))
	verify(t, d.Secret, got)
}

func TestPluginRefusalsKeepTheirCode(t *testing.T) {
	r := newReceiver(t, http.StatusOK, "")
	p := plugintest.Notifier(t, New(Options{RootCAs: r.roots()}))
	_, err := p.PrepareDestination(t.Context(), notifier.Destination{URL: r.srv.URL})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "loopback address")
	_, err = p.Deliver(t.Context(), notifier.Destination{URL: r.srv.URL, Secret: testSecret}, sample())
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "checked again at delivery")
	require.Empty(t, r.got)

	down := newReceiver(t, http.StatusBadGateway, "upstream down")
	p = plugintest.Notifier(t, localWebhook(down, t0))
	_, err = p.Deliver(t.Context(), notifier.Destination{URL: down.srv.URL, Secret: testSecret}, sample())
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	e, _ := errs.As(err)
	require.Equal(t, "receiver answered 502: upstream down", e.Message)
}
