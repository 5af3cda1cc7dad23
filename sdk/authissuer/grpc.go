package authissuer

import (
	"context"

	"google.golang.org/grpc"

	pb "github.com/pactboard/pact/sdk/internal/gen/pact/authissuer/v1"
	"github.com/pactboard/pact/sdk/internal/grpcplugin"
)

// service is the gRPC service of this kind (pb.*_ServiceDesc.ServiceName).
const service = "pact.authissuer.v1.IssuerService"

// server serves an Issuer over gRPC, in the plugin process.
type server struct {
	pb.UnimplementedIssuerServiceServer
	impl Issuer
}

func register(impl Issuer) func(*grpc.Server) {
	return func(s *grpc.Server) { pb.RegisterIssuerServiceServer(s, &server{impl: impl}) }
}

func (s *server) Verify(ctx context.Context, r *pb.VerifyRequest) (_ *pb.VerifyResponse, err error) {
	defer grpcplugin.Recover(&err)
	id, err := s.impl.Verify(ctx, VerifyRequest{Token: r.GetToken(), Audiences: r.GetAudiences()})
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	if id == nil {
		id = &Identity{}
	}
	return &pb.VerifyResponse{
		Subject: id.Subject, Issuer: id.Issuer, Email: id.Email, EmailVerified: id.EmailVerified,
		Amr: id.AMR, Audience: id.Audience, Scope: id.Scope, ExpiresAt: grpcplugin.Timestamp(id.ExpiresAt),
	}, nil
}

func (s *server) Metadata(ctx context.Context, _ *pb.MetadataRequest) (_ *pb.MetadataResponse, err error) {
	defer grpcplugin.Recover(&err)
	m, err := s.impl.Metadata(ctx)
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	if m == nil {
		m = &Metadata{}
	}
	return &pb.MetadataResponse{
		Issuer: m.Issuer, AuthorizationServers: m.AuthorizationServers,
		ScopesSupported: m.ScopesSupported, UserinfoEndpoint: m.UserinfoEndpoint,
	}, nil
}

// client is an Issuer over gRPC, in the host process.
type client struct{ c pb.IssuerServiceClient }

func newClient(cc *grpc.ClientConn) any { return &client{c: pb.NewIssuerServiceClient(cc)} }

func (c *client) Verify(ctx context.Context, r VerifyRequest) (*Identity, error) {
	id, err := c.c.Verify(ctx, &pb.VerifyRequest{Token: r.Token, Audiences: r.Audiences})
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "authissuer.Verify")
	}
	return &Identity{
		Subject: id.GetSubject(), Issuer: id.GetIssuer(), Email: id.GetEmail(), EmailVerified: id.GetEmailVerified(),
		AMR: id.GetAmr(), Audience: id.GetAudience(), Scope: id.GetScope(), ExpiresAt: grpcplugin.Time(id.GetExpiresAt()),
	}, nil
}

func (c *client) Metadata(ctx context.Context) (*Metadata, error) {
	m, err := c.c.Metadata(ctx, &pb.MetadataRequest{})
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "authissuer.Metadata")
	}
	return &Metadata{
		Issuer: m.GetIssuer(), AuthorizationServers: m.GetAuthorizationServers(),
		ScopesSupported: m.GetScopesSupported(), UserinfoEndpoint: m.GetUserinfoEndpoint(),
	}, nil
}
