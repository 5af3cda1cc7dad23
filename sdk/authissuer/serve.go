package authissuer

import (
	"os/exec"

	"github.com/hashicorp/go-plugin"

	"github.com/pactboard/pact/sdk/internal/grpcplugin"
)

// PluginName is the name a host dispenses an auth issuer plugin under.
const PluginName = "authissuer"

// Serve runs impl as an auth issuer plugin. Call it from the plugin's main; it
// returns only when the host is done with the plugin. Run by hand, outside a
// host, the binary says it is a plugin and exits with status 1.
func Serve(impl Issuer) {
	grpcplugin.Serve(PluginName, &grpcplugin.Plugin{Service: service, Register: register(impl)})
}

// The host side. Plugin authors need none of what follows: the board's plugin
// host and sdk/plugintest use it.

// ClientConfig returns the go-plugin settings a host launches an auth issuer
// binary with: the handshake, protocol version 1, gRPC only and AutoMTLS.
// The host adds its logger, checksum, environment and timeouts.
func ClientConfig(cmd *exec.Cmd) *plugin.ClientConfig {
	return grpcplugin.ClientConfig(PluginName, hostPlugin(), cmd)
}

// Dispense returns the Issuer served behind c, a started go-plugin client.
// The Issuer's errors are *errs.Error: the plugin's refusals with their
// codes, errs.Unavailable when the plugin is gone or did not answer in time,
// errs.Internal when it answered something the host cannot read.
// Never log the tokens it verifies.
func Dispense(c plugin.ClientProtocol) (Issuer, error) {
	return grpcplugin.Dispense[Issuer](c, PluginName)
}

// PluginSet returns a go-plugin plugin set that both serves impl and
// dispenses its client (with impl nil, only the host side);
// sdk/plugintest runs it in-process.
func PluginSet(impl Issuer) plugin.PluginSet {
	if impl == nil {
		return plugin.PluginSet{PluginName: hostPlugin()}
	}
	return plugin.PluginSet{PluginName: &grpcplugin.Plugin{Service: service, Register: register(impl), NewClient: newClient}}
}

func hostPlugin() *grpcplugin.Plugin {
	return &grpcplugin.Plugin{Service: service, NewClient: newClient}
}
