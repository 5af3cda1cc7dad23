// Package plugintest runs a plugin implementation in the test's own process
// over real gRPC, and returns what the host would hold: the kind's interface
// backed by a gRPC client. Every value and every refusal crosses the same
// wire as in production (protobuf encoding, the errs code translation), so a
// test through plugintest proves the plugin keeps the contract; only the
// subprocess and the handshake are left out.
//
//	func TestDeliver(t *testing.T) {
//		n := plugintest.Notifier(t, myNotifier{})
//		_, err := n.Deliver(ctx, dest, notification)
//		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
//	}
//
// The connection and the server are closed when the test ends.
package plugintest

import (
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/notifier"
)

// Notifier serves impl over in-process gRPC and returns the host's client.
func Notifier(t testing.TB, impl notifier.Notifier) notifier.Notifier {
	t.Helper()
	return serve(t, notifier.PluginSet(impl), notifier.Dispense)
}

// Credential serves impl over in-process gRPC and returns the host's client.
func Credential(t testing.TB, impl credential.Credential) credential.Credential {
	t.Helper()
	return serve(t, credential.PluginSet(impl), credential.Dispense)
}

// Issuer serves impl over in-process gRPC and returns the host's client.
func Issuer(t testing.TB, impl authissuer.Issuer) authissuer.Issuer {
	t.Helper()
	return serve(t, authissuer.PluginSet(impl), authissuer.Dispense)
}

func serve[T any](t testing.TB, set plugin.PluginSet, dispense func(plugin.ClientProtocol) (T, error)) T {
	t.Helper()
	// Closing the client stops the server too (go-plugin's controller
	// Shutdown call); stopping it again here would race with that.
	client, _ := plugin.TestPluginGRPCConn(t, false, set)
	t.Cleanup(func() { _ = client.Close() })
	v, err := dispense(client)
	if err != nil {
		t.Fatalf("plugintest: dispense: %v", err)
	}
	return v
}
