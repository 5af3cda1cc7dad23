package grpcplugin_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/internal/grpcplugin"
	"github.com/pactboard/pact/sdk/notifier"
)

func TestToStatus(t *testing.T) {
	require.NoError(t, grpcplugin.ToStatus(nil))
	for _, tt := range []struct {
		name string
		err  error
		want codes.Code
	}{
		{"InvalidRequest", errs.E(errs.InvalidRequest, "x"), codes.InvalidArgument},
		{"Unauthorized", errs.E(errs.Unauthorized, "x"), codes.Unauthenticated},
		{"Unavailable", errs.E(errs.Unavailable, "x"), codes.Unavailable},
		{"Authority", errs.E(errs.ChainBroken, "x"), codes.FailedPrecondition},
		{"Plain", errors.New("x"), codes.Internal},
		{"Deadline", context.DeadlineExceeded, codes.DeadlineExceeded},
		{"Canceled", context.Canceled, codes.Canceled},
		{"Status", status.Error(codes.ResourceExhausted, "x"), codes.ResourceExhausted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, status.Code(grpcplugin.ToStatus(tt.err)))
		})
	}
}

func TestFromStatus(t *testing.T) {
	ctx := context.Background()
	require.NoError(t, grpcplugin.FromStatus(ctx, nil, "op"))
	for _, tt := range []struct {
		name string
		err  error
		want errs.Code
	}{
		{"Coded", grpcplugin.ToStatus(errs.E(errs.NotePinned, "x")), errs.NotePinned},
		{"InternalCause", grpcplugin.ToStatus(&errs.Error{Code: errs.Internal, Message: "op", Err: errors.New("cause")}), errs.Internal},
		{"Unavailable", status.Error(codes.Unavailable, "connection refused"), errs.Unavailable},
		{"Deadline", status.Error(codes.DeadlineExceeded, "slow"), errs.Unavailable},
		{"Canceled", status.Error(codes.Canceled, "gone"), errs.Unavailable},
		{"Unimplemented", status.Error(codes.Unimplemented, "no method"), errs.Internal},
		{"Garbage", status.Error(codes.Internal, "grpc: failed to unmarshal the received message"), errs.Internal},
		{"NotAStatus", errors.New("eof"), errs.Unavailable},
		{"UnknownCode", unknownCode(t), errs.Internal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := grpcplugin.FromStatus(ctx, tt.err, "notifier.Deliver")
			require.Equal(t, tt.want, errs.CodeOf(err), "%v", err)
		})
	}
	err := grpcplugin.FromStatus(ctx, grpcplugin.ToStatus(&errs.Error{Code: errs.Internal, Message: "sign", Err: errors.New("bad seed")}), "op")
	require.Contains(t, err.Error(), "sign: bad seed")
}

// A plugin whose server is gone answers errs.Unavailable, never a panic.
func TestDeadPluginIsUnavailable(t *testing.T) {
	impl := deliverFunc(func(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error) {
		return &notifier.Receipt{Status: 200}, nil
	})
	client, server := plugin.TestPluginGRPCConn(t, false, notifier.PluginSet(impl))
	defer func() { _ = client.Conn.Close() }()
	n, err := notifier.Dispense(client)
	require.NoError(t, err)
	_, err = n.Deliver(context.Background(), notifier.Destination{}, notifier.Notification{})
	require.NoError(t, err)

	server.Stop()
	_, err = n.Deliver(context.Background(), notifier.Destination{}, notifier.Notification{})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)
}

func TestDispenseWrongKind(t *testing.T) {
	impl := deliverFunc(nil)
	client, _ := plugin.TestPluginGRPCConn(t, false, notifier.PluginSet(impl))
	defer func() { _ = client.Close() }()
	_, err := grpcplugin.Dispense[notifier.Notifier](client, "credential")
	require.ErrorContains(t, err, "does not serve the credential kind")
}

type deliverFunc func(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error)

func (f deliverFunc) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{}, nil
}

func (f deliverFunc) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return &d, nil
}

func (f deliverFunc) Deliver(ctx context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	return f(ctx, d, n)
}

// A host that dispenses a notifier from a plugin serving another kind is
// told so before any call.
func TestDispenseOtherKind(t *testing.T) {
	set := notifier.PluginSet(deliverFunc(nil))
	set["credential"] = credential.PluginSet(nil)["credential"] // host side only
	client, _ := plugin.TestPluginGRPCConn(t, false, set)
	defer func() { _ = client.Close() }()
	_, err := credential.Dispense(client)
	require.ErrorContains(t, err, "it does not serve pact.credential.v1.CredentialService")
}

func unknownCode(t *testing.T) error {
	st, err := status.New(codes.FailedPrecondition, "x").WithDetails(&errdetails.ErrorInfo{Domain: grpcplugin.ErrorDomain, Reason: "made_up"})
	require.NoError(t, err)
	return st.Err()
}
