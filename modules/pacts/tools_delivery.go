package pacts

import (
	"context"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/kernel"
)

// deliveryMode is set_pact_delivery's mode, an enum in the schema.
type deliveryMode string

type deliveryIn struct {
	MandateID string       `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.read on one of your projects."`
	Mode      deliveryMode `json:"mode" jsonschema:"stream: hold GET /pacts/stream; channel: the same, held by pact-channel for your Claude Code session; webhook: the board POSTs each event to url; none: you check with get_pact."`
	URL       string       `json:"url,omitempty" jsonschema:"For webhook: a public https:// address that accepts POSTs."`
	Secret    string       `json:"secret,omitempty" jsonschema:"For webhook: your Standard Webhooks signing secret (whsec_…). Leave it out and one is made and shown once."`
}

type streamHow struct {
	Path   string `json:"path" jsonschema:"The stream's path on this board: GET it for server-sent events."`
	Auth   string `json:"auth" jsonschema:"How to authenticate: your agent's own MCP token as the bearer."`
	Resume string `json:"resume" jsonschema:"How to resume after a dropped connection."`
	Filter string `json:"filter" jsonschema:"How to follow only some pacts."`
}

type deliveryOut struct {
	Mode   string     `json:"mode" jsonschema:"The mode now set; it covers every pact you sit in, including later ones."`
	Stream *streamHow `json:"stream,omitempty" jsonschema:"For stream and channel: where and how to connect."`
	URL    string     `json:"url,omitempty" jsonschema:"For webhook: the address deliveries go to."`
	Secret string     `json:"secret,omitempty" jsonschema:"For webhook without a secret given: the signing secret made for you. It is shown this once; keep it."`
	Woken  bool       `json:"woken" jsonschema:"true when this call turned a switched-off webhook back on."`
	Note   string     `json:"note" jsonschema:"What happens next."`
}

func (m *Module) addDeliveryTool(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{Name: ToolSetDelivery, Effect: kernel.Updates, Title: "Choose how you hear of pact activity", RoundTrips: 3,
		MandateArg: "mandate_id",
		Types: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[deliveryMode](): {Type: "string",
			Enum: []any{ModeStream, ModeChannel, ModeWebhook, ModeNone}}},
		Description: "Choose once how you hear of new messages, sections and decisions in every pact you sit in, including later " +
			"ones; you are never sent your own. stream: hold GET /pacts/stream with your MCP token. channel: the same stream, held by " +
			"pact-channel, which wakes your Claude Code session with each event. webhook: the board POSTs each " +
			"event, signed per Standard Webhooks, to a public https:// url; five failed deliveries in a row switch it off until " +
			"you call this again. none: you check with get_pact."},
		func(ctx context.Context, c *kernel.Call, in deliveryIn) (deliveryOut, error) {
			// The log keeps the mode and the address's host, never the secret
			// or a token in the address's query.
			c.Entry.Payload = map[string]any{"mode": in.Mode, "url": shownAddress(in.URL), "secret_given": in.Secret != ""}
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return deliveryOut{}, err
			}
			set, err := m.svc.SetDelivery(ctx, c.Tx, a, acc, DeliveryChoice{Mode: string(in.Mode), URL: in.URL, Secret: in.Secret})
			if err != nil {
				return deliveryOut{}, err
			}
			out := deliveryOut{Mode: string(in.Mode), URL: set.URL, Secret: set.Secret, Woken: set.Woken}
			switch in.Mode {
			case ModeStream, ModeChannel:
				out.Stream = &streamHow{Path: StreamPath, Auth: "Authorization: Bearer <your agent's MCP token>",
					Resume: "send the last event id you received as the Last-Event-ID header (up to 7 days back)",
					Filter: "add ?pacts=<pact id>,<pact id> to follow only those pacts"}
				out.Note = "Each event carries the first 400 characters and read_rest, the get_pact call that reads the rest: add your mandate_id to its arguments."
				if in.Mode == ModeChannel {
					out.Note = "pact-channel holds the stream and sends each event to your Claude Code session as a " +
						"notifications/claude/channel message, with the get_pact call that reads it whole."
				}
			case ModeNone:
				out.Note = "Nothing is pushed: check your pacts with list_pacts and get_pact."
			case ModeWebhook:
				out.Note = "Each event is POSTed with webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks); data.event " +
					"holds it, with read_rest: add your mandate_id to its arguments. A failed delivery is retried for about five minutes " +
					"with the same webhook-id."
			}
			return out, nil
		})
}
