package credential

import (
	"context"

	"google.golang.org/grpc"

	pb "github.com/pactboard/pact/sdk/internal/gen/pact/credential/v1"
	"github.com/pactboard/pact/sdk/internal/grpcplugin"
)

// service is the gRPC service of this kind (pb.*_ServiceDesc.ServiceName).
const service = "pact.credential.v1.CredentialService"

// server serves a Credential over gRPC, in the plugin process.
type server struct {
	pb.UnimplementedCredentialServiceServer
	impl Credential
}

func register(impl Credential) func(*grpc.Server) {
	return func(s *grpc.Server) { pb.RegisterCredentialServiceServer(s, &server{impl: impl}) }
}

func (s *server) Format(ctx context.Context, _ *pb.FormatRequest) (_ *pb.FormatResponse, err error) {
	defer grpcplugin.Recover(&err)
	f, err := s.impl.Format(ctx)
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	return &pb.FormatResponse{Format: f}, nil
}

func (s *server) Export(ctx context.Context, r *pb.ExportRequest) (_ *pb.ExportResponse, err error) {
	defer grpcplugin.Recover(&err)
	req := ExportRequest{
		HolderKey: r.GetHolderKey(), TTL: grpcplugin.FromDuration(r.GetTtl()),
		Now: grpcplugin.Time(r.GetNow()), Key: keyFrom(r.GetKey()),
	}
	for _, l := range r.GetChain() {
		req.Chain = append(req.Chain, Link{
			ID: l.GetId(), ParentID: l.GetParentId(), IssuerKind: l.GetIssuerKind(), Issuer: l.GetIssuer(),
			Holder: l.GetHolder(), Scope: l.GetScope(), Limits: l.GetLimits(),
			DelegationsLeft: int(l.GetDelegationsLeft()), Depth: int(l.GetDepth()), ExpiresAt: grpcplugin.Time(l.GetExpiresAt()),
		})
	}
	e, err := s.impl.Export(ctx, req)
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	if e == nil {
		e = &Exported{}
	}
	out := &pb.ExportResponse{
		Format: e.Format, Field: e.Field, Credential: e.Credential, ExternalId: e.ExternalID,
		ExpiresAt: grpcplugin.Timestamp(e.ExpiresAt),
	}
	if e.LinkIDs != nil {
		out.LinkIds = make(map[string]*pb.OutsideIDs, len(e.LinkIDs))
		for k, ids := range e.LinkIDs {
			out.LinkIds[k] = &pb.OutsideIDs{Ids: ids}
		}
	}
	return out, nil
}

func (s *server) RevocationList(ctx context.Context, r *pb.RevocationListRequest) (_ *pb.RevocationListResponse, err error) {
	defer grpcplugin.Recover(&err)
	l, err := s.impl.RevocationList(ctx, RevocationRequest{
		Revoked: r.GetRevoked(), Version: r.GetVersion(), Now: grpcplugin.Time(r.GetNow()), Key: keyFrom(r.GetKey()),
	})
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	if l == nil {
		l = &RevocationList{}
	}
	return &pb.RevocationListResponse{ContentType: l.ContentType, Body: l.Body}, nil
}

func (s *server) Import(ctx context.Context, r *pb.ImportRequest) (_ *pb.ImportResponse, err error) {
	defer grpcplugin.Recover(&err)
	l, err := s.impl.Import(ctx, ImportRequest{
		Credential: r.GetCredential(), TrustedRoots: r.GetTrustedRoots(), HolderKeys: r.GetHolderKeys(),
		Now: grpcplugin.Time(r.GetNow()),
	})
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	if l == nil {
		l = &ImportedLink{}
	}
	return &pb.ImportResponse{
		Scope: l.Scope, Limits: l.Limits, ExpiresAt: grpcplugin.Timestamp(l.ExpiresAt), ExternalId: l.ExternalID,
		IssuerPrincipal: l.IssuerPrincipal, MaxDelegations: int64(l.MaxDelegations),
	}, nil
}

// client is a Credential over gRPC, in the host process.
type client struct{ c pb.CredentialServiceClient }

func newClient(cc *grpc.ClientConn) any { return &client{c: pb.NewCredentialServiceClient(cc)} }

func (c *client) Format(ctx context.Context) (string, error) {
	r, err := c.c.Format(ctx, &pb.FormatRequest{})
	if err != nil {
		return "", grpcplugin.FromStatus(ctx, err, "credential.Format")
	}
	return r.GetFormat(), nil
}

func (c *client) Export(ctx context.Context, r ExportRequest) (*Exported, error) {
	req := &pb.ExportRequest{
		HolderKey: r.HolderKey, Ttl: grpcplugin.Duration(r.TTL), Now: grpcplugin.Timestamp(r.Now), Key: keyTo(r.Key),
	}
	for _, l := range r.Chain {
		req.Chain = append(req.Chain, &pb.Link{
			Id: l.ID, ParentId: l.ParentID, IssuerKind: l.IssuerKind, Issuer: l.Issuer, Holder: l.Holder,
			Scope: l.Scope, Limits: l.Limits, DelegationsLeft: int64(l.DelegationsLeft), Depth: int64(l.Depth),
			ExpiresAt: grpcplugin.Timestamp(l.ExpiresAt),
		})
	}
	e, err := c.c.Export(ctx, req)
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "credential.Export")
	}
	out := &Exported{
		Format: e.GetFormat(), Field: e.GetField(), Credential: e.GetCredential(), ExternalID: e.GetExternalId(),
		ExpiresAt: grpcplugin.Time(e.GetExpiresAt()),
	}
	if ids := e.GetLinkIds(); ids != nil {
		out.LinkIDs = make(map[string][]string, len(ids))
		for k, v := range ids {
			out.LinkIDs[k] = v.GetIds()
		}
	}
	return out, nil
}

func (c *client) RevocationList(ctx context.Context, r RevocationRequest) (*RevocationList, error) {
	l, err := c.c.RevocationList(ctx, &pb.RevocationListRequest{
		Revoked: r.Revoked, Version: r.Version, Now: grpcplugin.Timestamp(r.Now), Key: keyTo(r.Key),
	})
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "credential.RevocationList")
	}
	return &RevocationList{ContentType: l.GetContentType(), Body: l.GetBody()}, nil
}

func (c *client) Import(ctx context.Context, r ImportRequest) (*ImportedLink, error) {
	l, err := c.c.Import(ctx, &pb.ImportRequest{
		Credential: r.Credential, TrustedRoots: r.TrustedRoots, HolderKeys: r.HolderKeys, Now: grpcplugin.Timestamp(r.Now),
	})
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "credential.Import")
	}
	return &ImportedLink{
		Scope: l.GetScope(), Limits: l.GetLimits(), ExpiresAt: grpcplugin.Time(l.GetExpiresAt()),
		ExternalID: l.GetExternalId(), IssuerPrincipal: l.GetIssuerPrincipal(), MaxDelegations: int(l.GetMaxDelegations()),
	}, nil
}

func keyTo(k SigningKey) *pb.SigningKey {
	if k.Kid == "" && k.Seed == nil {
		return nil
	}
	return &pb.SigningKey{Kid: k.Kid, Seed: k.Seed}
}

func keyFrom(k *pb.SigningKey) SigningKey { return SigningKey{Kid: k.GetKid(), Seed: k.GetSeed()} }
