package credential

import (
	"os/exec"

	"github.com/hashicorp/go-plugin"

	"github.com/pactboard/pact/sdk/internal/grpcplugin"
)

// PluginName is the name a host dispenses a credential plugin under.
const PluginName = "credential"

// Serve runs impl as a credential plugin. Call it from the plugin's main; it
// returns only when the host is done with the plugin. Run by hand, outside a
// host, the binary says it is a plugin and exits with status 1.
func Serve(impl Credential) {
	grpcplugin.Serve(PluginName, &grpcplugin.Plugin{Service: service, Register: register(impl)})
}

// The host side. Plugin authors need none of what follows: the board's plugin
// host and sdk/plugintest use it.

// ClientConfig returns the go-plugin settings a host launches a credential
// binary with: the handshake, protocol version 1, gRPC only and AutoMTLS.
// The host adds its logger, checksum, environment and timeouts.
func ClientConfig(cmd *exec.Cmd) *plugin.ClientConfig {
	return grpcplugin.ClientConfig(PluginName, hostPlugin(), cmd)
}

// Dispense returns the Credential served behind c, a started go-plugin client.
// The Credential's errors are *errs.Error: the plugin's refusals with their
// codes, errs.Unavailable when the plugin is gone or did not answer in time,
// errs.Internal when it answered something the host cannot read.
// Never log the values of its requests or results: they carry the signing
// seed and credentials.
func Dispense(c plugin.ClientProtocol) (Credential, error) {
	return grpcplugin.Dispense[Credential](c, PluginName)
}

// PluginSet returns a go-plugin plugin set that both serves impl and
// dispenses its client (with impl nil, only the host side);
// sdk/plugintest runs it in-process.
func PluginSet(impl Credential) plugin.PluginSet {
	if impl == nil {
		return plugin.PluginSet{PluginName: hostPlugin()}
	}
	return plugin.PluginSet{PluginName: &grpcplugin.Plugin{Service: service, Register: register(impl), NewClient: newClient}}
}

func hostPlugin() *grpcplugin.Plugin {
	return &grpcplugin.Plugin{Service: service, NewClient: newClient}
}
