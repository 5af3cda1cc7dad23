// Package grpcplugin is the go-plugin glue shared by the three plugin kinds:
// the handshake, the generic gRPC plugin type, serving, dispensing, and the
// error translation between *errs.Error and gRPC status (errors.go). It
// knows the generated code only through the registration functions each
// kind passes in; the kind packages (sdk/notifier, sdk/credential,
// sdk/authissuer) hold the conversions between their Go types and the
// generated messages.
package grpcplugin

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// ProtocolVersion is the one protocol version of every kind so far. A
// breaking change to a kind's proto adds version 2 to that kind's
// VersionedPlugins beside 1; the host and the plugin agree on the highest
// version both speak.
const ProtocolVersion = 1

// Handshake is shared by every kind. The magic cookie never changes: it only
// tells a person who runs a plugin binary by hand that it is a plugin (it is
// not a security feature). Kinds are told apart by the plugin name a host
// dispenses.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   "PACT_PLUGIN_MAGIC_COOKIE",
		MagicCookieValue: "5b1c9a7e2f4d4c0e8a3b6d9f1e2c7a40",
	}
}

// Plugin is one kind's go-plugin plugin over gRPC. On the plugin side
// Register is set (it registers the kind's service on the server); on the
// host side NewClient is set (it wraps the connection in the kind's Go
// interface).
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Service is the kind's gRPC service name; the host checks at dispense
	// time that the plugin serves it.
	Service   string
	Register  func(*grpc.Server)
	NewClient func(*grpc.ClientConn) any
}

var _ plugin.GRPCPlugin = (*Plugin)(nil)

// GRPCServer registers the kind's service; a host-side Plugin registers
// nothing.
func (p *Plugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Register != nil {
		p.Register(s)
	}
	return nil
}

// GRPCClient returns the kind's Go interface over conn.
func (p *Plugin) GRPCClient(ctx context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	if p.NewClient == nil {
		return nil, fmt.Errorf("grpcplugin: no client for this plugin")
	}
	if err := checkService(ctx, c, p.Service); err != nil {
		return nil, err
	}
	return p.NewClient(c), nil
}

// checkService fails when the plugin behind c does not serve service: the
// operator configured a plugin of another kind. It calls a method no
// service has; a server without the service answers "unknown service"
// (grpc-go's wording), one with it "unknown method". Any other answer is
// left for the first real call to report.
func checkService(ctx context.Context, c *grpc.ClientConn, service string) error {
	if service == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := c.Invoke(ctx, "/"+service+"/PactKindProbe", &emptypb.Empty{}, &emptypb.Empty{})
	if st := status.Convert(err); st.Code() == codes.Unimplemented && strings.HasPrefix(st.Message(), "unknown service") {
		return fmt.Errorf("it does not serve %s", service)
	}
	return nil
}

// VersionedPlugins is the plugin set of one kind: protocol version 1 serves
// the plugin p under the kind's name.
func VersionedPlugins(kind string, p *Plugin) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{ProtocolVersion: {kind: p}}
}

// Serve runs the plugin p of the given kind in a plugin binary; it returns
// when the host is done with the plugin. Run by hand (without the host's
// magic cookie) it prints that the binary is a plugin and exits with 1.
func Serve(kind string, p *Plugin) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake(),
		VersionedPlugins: VersionedPlugins(kind, p),
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}

// ClientConfig is the host side of one kind: what a host launches cmd with.
// The host adds its own settings (logger, checksum, timeouts) to the result.
func ClientConfig(kind string, p *Plugin, cmd *exec.Cmd) *plugin.ClientConfig {
	return &plugin.ClientConfig{
		HandshakeConfig:  Handshake(),
		VersionedPlugins: VersionedPlugins(kind, p),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
	}
}

// Dispense returns the kind's client from a started go-plugin connection,
// with a clear error when the plugin serves another kind.
func Dispense[T any](c plugin.ClientProtocol, kind string) (T, error) {
	var zero T
	raw, err := c.Dispense(kind)
	if err != nil {
		return zero, fmt.Errorf("the plugin does not serve the %s kind (is it another kind of plugin?): %w", kind, err)
	}
	v, ok := raw.(T)
	if !ok {
		return zero, fmt.Errorf("the plugin's %s client has type %T", kind, raw)
	}
	return v, nil
}
