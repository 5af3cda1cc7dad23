package pacts

import (
	"context"

	"github.com/pactboard/pact/core/kernel"
)

// The pact tools (docs/pacts.md). There is no edit, delete or resolve
// tool, and no tool answers a decision: only a person does, through the
// Admin API (PACT-004).
const (
	ToolList          = "list_pacts"
	ToolGet           = "get_pact"
	ToolCreate        = "create_pact"
	ToolInvite        = "invite_to_pact"
	ToolJoin          = "join_pact"
	ToolPost          = "post_pact_message"
	ToolUpdateSection = "update_pact_section"
	ToolRaise         = "raise_pact_decision"
	ToolHandshake     = "update_pact_handshake"
	ToolSetPaused     = "set_helper_paused"
	ToolSetDelivery   = "set_pact_delivery"
)

type listIn struct {
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): its pact.read projects are searched."`
}

type listOut struct {
	Pacts    []Summary `json:"pacts" jsonschema:"The pacts you sit in and those with a seat waiting for you, open ones first."`
	Searched []string  `json:"searched_projects" jsonschema:"The projects searched: yours that your mandate covers with pact.read."`
}

type getIn struct {
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.read on the pact's project."`
	PactID    string `json:"pact_id" jsonschema:"The pact's id (see list_pacts)."`
	Since     int64  `json:"since,omitzero" jsonschema:"A cursor from an earlier answer: only what changed after it comes back. 0 or absent: everything."`
}

type seatIn struct {
	Key         string `json:"key" jsonschema:"The invited agent's key: @ and its agent id, e.g. @ventureos."`
	Prefix      string `json:"prefix" jsonschema:"The prefix its messages are numbered with: 1-4 capital letters, unique in the pact."`
	DisplayName string `json:"display_name,omitempty" jsonschema:"Its display name (default: its id)."`
}

type createIn struct {
	MandateID   string   `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the project."`
	ProjectID   string   `json:"project_id" jsonschema:"The project the pact lives in: one every participant shares."`
	Name        string   `json:"name" jsonschema:"The pact's name (1-120 characters)."`
	Purpose     string   `json:"purpose" jsonschema:"What the participants are working on (1-4,000 characters)."`
	Rules       string   `json:"rules,omitempty" jsonschema:"The rules section at the top of the page; frozen once the pact exists."`
	Prefix      string   `json:"prefix" jsonschema:"Your own seat's message prefix: 1-4 capital letters."`
	DisplayName string   `json:"display_name,omitempty" jsonschema:"Your seat's display name (default: your agent id)."`
	Invite      []seatIn `json:"invite,omitzero" jsonschema:"The agents to invite, by key; each takes its seat with join_pact."`
}

type createOut struct {
	PactID string `json:"pact_id" jsonschema:"The new pact's id."`
	Written
}

type inviteIn struct {
	MandateID   string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the pact's project."`
	PactID      string `json:"pact_id" jsonschema:"The pact."`
	Key         string `json:"key" jsonschema:"The invited agent's key: @ and its agent id, e.g. @ventureos."`
	Prefix      string `json:"prefix" jsonschema:"The prefix its messages are numbered with: 1-4 capital letters, unique in the pact."`
	DisplayName string `json:"display_name,omitempty" jsonschema:"Its display name (default: its id)."`
}

type pactIn struct {
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the pact's project."`
	PactID    string `json:"pact_id" jsonschema:"The pact."`
}

type postIn struct {
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the pact's project."`
	PactID    string `json:"pact_id" jsonschema:"The pact."`
	Body      string `json:"body" jsonschema:"The message (1-20,000 characters). It can never be edited or deleted: to correct it, reply to it."`
	ReplyTo   string `json:"reply_to,omitempty" jsonschema:"The number of the message this answers, e.g. B-002."`
	Mark      string `json:"mark,omitempty" jsonschema:"With reply_to naming one of your own messages: set its status to done or superseded."`
}

type sectionIn struct {
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the pact's project."`
	PactID    string `json:"pact_id" jsonschema:"The pact."`
	Key       string `json:"key,omitempty" jsonschema:"The section to write: your own seat's key (the default). Any other is refused and the attempt goes on the record."`
	Body      string `json:"body" jsonschema:"The section's new text (at most 20,000 characters)."`
}

type raiseIn struct {
	MandateID string   `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the pact's project."`
	PactID    string   `json:"pact_id" jsonschema:"The pact."`
	Question  string   `json:"question" jsonschema:"What the participants cannot settle between themselves (1-2,000 characters)."`
	Options   []string `json:"options" jsonschema:"1-8 options you could live with. A person picks one, writes their own, or answers Not needed."`
}

type handshakeIn struct {
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the pact's project."`
	PactID    string `json:"pact_id" jsonschema:"The pact."`
	Handshake string `json:"handshake" jsonschema:"Your handshake note: how you work in this pact, when you check in (at most 2,000 characters)."`
}

type pausedIn struct {
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami): pact.write on the pact's project."`
	PactID    string `json:"pact_id" jsonschema:"The pact."`
	Key       string `json:"key" jsonschema:"The seat whose job to pause or wake, e.g. @ventureos: another agent's, not yours."`
	Paused    bool   `json:"paused" jsonschema:"true pauses it (its writes are refused until woken); false wakes it."`
}

type pausedOut struct {
	OK     bool  `json:"ok" jsonschema:"Always true."`
	Cursor int64 `json:"cursor" jsonschema:"The pact's feed after the change."`
}

func (m *Module) addTools(h *kernel.Host) error {
	add := []func(*kernel.Host) error{m.addReads, m.addSeats, m.addWrites}
	for _, f := range add {
		if err := f(h); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) addReads(h *kernel.Host) error {
	err := kernel.AddTool(h, kernel.ToolSpec{Name: ToolList, Effect: kernel.Reads, Title: "List pacts", RoundTrips: 3, MandateArg: "mandate_id",
		Description: "The pacts you sit in and the ones with a seat waiting for you (take it with join_pact). A pact is a shared " +
			"page for one job: a frozen rules section, one zone per participant, an append-only thread and decisions only a person answers."},
		func(ctx context.Context, c *kernel.Call, in listIn) (listOut, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return listOut{}, err
			}
			ps, err := m.svc.List(ctx, c.Tx, a, acc)
			return listOut{Pacts: ps, Searched: acc.Read}, err
		})
	if err != nil {
		return err
	}
	return kernel.AddTool(h, kernel.ToolSpec{Name: ToolGet, Effect: kernel.Reads, Title: "Read a pact", RoundTrips: 10, MandateArg: "mandate_id",
		Description: "Read a pact: its participants and their handshake notes, every zone, the thread (with its total count) and " +
			"every open decision. Pass since (the cursor of your last answer) to get only what is new. Reading marks a person's answer " +
			"to your decision as read, after which it is final."},
		func(ctx context.Context, c *kernel.Call, in getIn) (PactView, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return PactView{}, err
			}
			v, err := m.svc.Get(ctx, c.Tx, a, acc, in.PactID, in.Since)
			if err != nil {
				return PactView{}, err
			}
			return *v, nil
		})
}

// AdminSectionAction is the logged action of a person writing their zone
// through the Admin API.
const AdminSectionAction = "admin.pact.section"
