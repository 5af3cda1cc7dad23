package notifier

import (
	"context"

	"google.golang.org/grpc"

	pb "github.com/pactboard/pact/sdk/internal/gen/pact/notifier/v1"
	"github.com/pactboard/pact/sdk/internal/grpcplugin"
)

// service is the gRPC service of this kind (pb.*_ServiceDesc.ServiceName).
const service = "pact.notifier.v1.NotifierService"

// server serves a Notifier over gRPC, in the plugin process.
type server struct {
	pb.UnimplementedNotifierServiceServer
	impl Notifier
}

func register(impl Notifier) func(*grpc.Server) {
	return func(s *grpc.Server) { pb.RegisterNotifierServiceServer(s, &server{impl: impl}) }
}

func (s *server) Capabilities(ctx context.Context, _ *pb.CapabilitiesRequest) (_ *pb.CapabilitiesResponse, err error) {
	defer grpcplugin.Recover(&err)
	c, err := s.impl.Capabilities(ctx)
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	if c == nil {
		c = &Capabilities{}
	}
	return &pb.CapabilitiesResponse{Name: c.Name, Version: c.Version, Kinds: c.Kinds, Structured: c.Structured}, nil
}

func (s *server) PrepareDestination(ctx context.Context, r *pb.PrepareDestinationRequest) (_ *pb.PrepareDestinationResponse, err error) {
	defer grpcplugin.Recover(&err)
	d, err := s.impl.PrepareDestination(ctx, destinationFrom(r.GetDestination()))
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	return &pb.PrepareDestinationResponse{Destination: destinationTo(d)}, nil
}

func (s *server) Deliver(ctx context.Context, r *pb.DeliverRequest) (_ *pb.DeliverResponse, err error) {
	defer grpcplugin.Recover(&err)
	rc, err := s.impl.Deliver(ctx, destinationFrom(r.GetDestination()), notificationFrom(r.GetNotification()))
	if err != nil {
		return nil, grpcplugin.ToStatus(err)
	}
	if rc == nil {
		rc = &Receipt{}
	}
	return &pb.DeliverResponse{Status: int32(rc.Status), Detail: rc.Detail}, nil
}

// client is a Notifier over gRPC, in the host process.
type client struct{ c pb.NotifierServiceClient }

func newClient(cc *grpc.ClientConn) any { return &client{c: pb.NewNotifierServiceClient(cc)} }

func (c *client) Capabilities(ctx context.Context) (*Capabilities, error) {
	r, err := c.c.Capabilities(ctx, &pb.CapabilitiesRequest{})
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "notifier.Capabilities")
	}
	return &Capabilities{Name: r.GetName(), Version: r.GetVersion(), Kinds: r.GetKinds(), Structured: r.GetStructured()}, nil
}

func (c *client) PrepareDestination(ctx context.Context, d Destination) (*Destination, error) {
	r, err := c.c.PrepareDestination(ctx, &pb.PrepareDestinationRequest{Destination: destinationTo(&d)})
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "notifier.PrepareDestination")
	}
	out := destinationFrom(r.GetDestination())
	return &out, nil
}

func (c *client) Deliver(ctx context.Context, d Destination, n Notification) (*Receipt, error) {
	r, err := c.c.Deliver(ctx, &pb.DeliverRequest{Destination: destinationTo(&d), Notification: notificationTo(&n)})
	if err != nil {
		return nil, grpcplugin.FromStatus(ctx, err, "notifier.Deliver")
	}
	return &Receipt{Status: int(r.GetStatus()), Detail: r.GetDetail()}, nil
}

func destinationTo(d *Destination) *pb.Destination {
	if d == nil {
		return nil
	}
	return &pb.Destination{Url: d.URL, Secret: d.Secret, Options: d.Options}
}

func destinationFrom(d *pb.Destination) Destination {
	return Destination{URL: d.GetUrl(), Secret: d.GetSecret(), Options: d.GetOptions()}
}

func notificationTo(n *Notification) *pb.Notification {
	out := &pb.Notification{
		Id: n.ID, IdempotencyKey: n.IdempotencyKey, Kind: n.Kind, Title: n.Title, Detail: n.Detail,
		OrgId: n.OrgID, ProjectId: n.ProjectID, TaskId: n.TaskID, AgentId: n.AgentID,
		CreatedAt: grpcplugin.Timestamp(n.CreatedAt), Language: n.Language, Data: n.Data,
		HumanId: n.HumanID,
	}
	for _, l := range n.Links {
		out.Links = append(out.Links, &pb.Link{Label: l.Label, Url: l.URL})
	}
	if b := n.Brief; b != nil {
		out.Brief = &pb.Brief{Greeting: b.Greeting}
		for _, s := range b.Sections {
			ps := &pb.BriefSection{Title: s.Title}
			for _, it := range s.Items {
				ps.Items = append(ps.Items, &pb.BriefItem{Text: it.Text, TaskId: it.TaskID, Url: it.URL})
			}
			out.Brief.Sections = append(out.Brief.Sections, ps)
		}
	}
	return out
}

func notificationFrom(n *pb.Notification) Notification {
	out := Notification{
		ID: n.GetId(), IdempotencyKey: n.GetIdempotencyKey(), Kind: n.GetKind(), Title: n.GetTitle(), Detail: n.GetDetail(),
		OrgID: n.GetOrgId(), ProjectID: n.GetProjectId(), TaskID: n.GetTaskId(), AgentID: n.GetAgentId(),
		CreatedAt: grpcplugin.Time(n.GetCreatedAt()), Language: n.GetLanguage(), Data: n.GetData(),
		HumanID: n.GetHumanId(),
	}
	for _, l := range n.GetLinks() {
		out.Links = append(out.Links, Link{Label: l.GetLabel(), URL: l.GetUrl()})
	}
	if b := n.GetBrief(); b != nil {
		out.Brief = &Brief{Greeting: b.GetGreeting()}
		for _, s := range b.GetSections() {
			bs := BriefSection{Title: s.GetTitle()}
			for _, it := range s.GetItems() {
				bs.Items = append(bs.Items, BriefItem{Text: it.GetText(), TaskID: it.GetTaskId(), URL: it.GetUrl()})
			}
			out.Brief.Sections = append(out.Brief.Sections, bs)
		}
	}
	return out
}
