package notify

import (
	"context"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// The Admin API's destination operations (docs/notifications.md): adapters
// over AddDestination, ListDestinations and DisableDestination, which
// check the role again and log every change and refusal.

// destinationBody bounds request bodies: a URL, a secret and 20 options of
// at most 2,000, 500 and 20 × 600 characters of up to four bytes each,
// JSON-escaped.
const destinationBody = 128 << 10

// adminOp is an operation of this module: ids are notify-<verb>-<noun>, the
// tag is "notify", and AdminOp declares the role gate. A write the gate
// refuses is logged as the service logs its own refusals (recordRefused),
// so a refused person is on the log whichever check stopped them.
func (s *Service) adminOp(method, path, id, summary, action string, min identity.Role, errors ...int) huma.Operation {
	op := kernel.AdminOp(huma.Operation{OperationID: "notify-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"notify"}, Errors: errors, MaxBodyBytes: destinationBody}, min)
	if action != "" {
		op = kernel.RecordRefusals(op, s.recordRefused(action))
	}
	return op
}

// recordRefused logs the gate's refusal of action in the person's
// organization, naming the destination when the path does.
func (s *Service) recordRefused(action string) kernel.RefusalRecorder {
	return func(ctx context.Context, p *identity.Person, param func(string) string, refusal error) error {
		payload := map[string]any{}
		// As the service's own entries name it: a number.
		if id, err := strconv.ParseInt(param("destination_id"), 10, 64); err == nil {
			payload["destination_id"] = id
		}
		e := ledger.Entry{Actor: "human:" + p.ID, OrgID: p.OrgID, Action: action, Payload: payload}
		if err := s.log.RecordRefusal(ctx, s.db, e, refusal); err != refusal {
			return err
		}
		return nil
	}
}

func (s *Service) registerAdmin(api huma.API) {
	huma.Register(api, s.adminOp(http.MethodGet, "/destinations", "list-destinations",
		"List the organization's notification destinations (URL hints, never secrets)", "", identity.Viewer),
		s.adminList)
	add := s.adminOp(http.MethodPost, "/destinations", "add-destination",
		"Add a notification destination; its secret is shown in this answer only", "admin.destination.add",
		identity.Owner, http.StatusBadRequest)
	add.DefaultStatus = http.StatusCreated
	huma.Register(api, add, s.adminAdd)
	huma.Register(api, s.adminOp(http.MethodPost, "/destinations/{destination_id}/disable", "disable-destination",
		"Stop sending notifications to a destination", "admin.destination.disable", identity.Owner,
		http.StatusNotFound), s.adminDisable)
}

type destinationsOut struct{ Body Destinations }

type addDestinationIn struct {
	Body struct {
		Notifier string            `json:"notifier" pattern:"^[a-z][a-z0-9-]{0,62}$" example:"webhook" doc:"A notifier plugin's name in PACT_PLUGINS"`
		URL      string            `json:"url" minLength:"1" maxLength:"2000" example:"https://hooks.example.com/pact" doc:"Where the plugin delivers; listed afterwards only as a hint"`
		Secret   string            `json:"secret,omitempty" maxLength:"500" doc:"The signing secret; empty: the plugin generates one (a webhook's whsec_…)"`
		Options  map[string]string `json:"options,omitempty" maxProperties:"20" doc:"Settings the plugin reads, at most 20"`
	}
}

type addedOut struct{ Body AddedDestination }

type destinationIDIn struct {
	DestinationID int64 `path:"destination_id" minimum:"1" doc:"The destination's id (GET /destinations)"`
}

type destinationOut struct{ Body Destination }

func (s *Service) adminList(ctx context.Context, _ *struct{}) (*destinationsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.ListDestinations(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	return &destinationsOut{Body: *list}, nil
}

func (s *Service) adminAdd(ctx context.Context, in *addDestinationIn) (*addedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	added, err := s.AddDestination(ctx, p.ID, DestinationInput{Notifier: b.Notifier, URL: b.URL, Secret: b.Secret, Options: b.Options})
	if err != nil {
		return nil, err
	}
	return &addedOut{Body: *added}, nil
}

func (s *Service) adminDisable(ctx context.Context, in *destinationIDIn) (*destinationOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.DisableDestination(ctx, p.ID, in.DestinationID)
	if err != nil {
		return nil, err
	}
	return &destinationOut{Body: *d}, nil
}
