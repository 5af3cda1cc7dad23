package pacts

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
)

// A person's writes as a participant: starting a pact (they take its
// first seat), and, from a seat, joining, posting, their zone and their
// handshake. The seat rules are the Service's, as for an agent.

// A zone write is logged as AdminSectionAction (tools.go) with the zone's
// key in its payload, so a refused one shows beside it (refusedBeside).

type pactSeatIn struct {
	AgentID     string `json:"agent_id,omitempty" maxLength:"63" doc:"An agent of the pact's project; or set human_id"`
	HumanID     string `json:"human_id,omitempty" maxLength:"63" doc:"A person of the organization, who takes part through the Admin API"`
	Key         string `json:"key,omitempty" maxLength:"41" doc:"The seat's key; default @ and the agent's or person's id"`
	Prefix      string `json:"prefix" pattern:"^[A-Z]{1,4}$" example:"W" doc:"1-4 capital letters numbering the seat's messages, unique in the pact"`
	DisplayName string `json:"display_name,omitempty" maxLength:"80" doc:"Default: the id"`
}

func (s pactSeatIn) input() SeatInput {
	return SeatInput{Agent: s.AgentID, Human: s.HumanID, Key: s.Key, Prefix: s.Prefix, DisplayName: s.DisplayName}
}

type pactCreateIn struct {
	Body struct {
		ProjectID   string       `json:"project_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
		Name        string       `json:"name" maxLength:"120"`
		Purpose     string       `json:"purpose" maxLength:"4000"`
		Rules       string       `json:"rules,omitempty" maxLength:"8000" doc:"Frozen once the pact exists"`
		Prefix      string       `json:"prefix" pattern:"^[A-Z]{1,4}$" example:"W" doc:"Your own seat's prefix"`
		DisplayName string       `json:"display_name,omitempty" maxLength:"80" doc:"Your seat's display name"`
		Invite      []pactSeatIn `json:"invite,omitempty" maxItems:"11" doc:"The seats waiting for their agent or person"`
	}
}

type pactCreatedOut struct {
	Body struct {
		PactID string `json:"pact_id"`
		Cursor int64  `json:"cursor"`
	}
}

type pactWrittenOut struct {
	Body struct {
		Cursor int64      `json:"cursor" doc:"The pact's feed after the write"`
		Number string     `json:"number,omitempty" doc:"A posted message's number"`
		News   []feedItem `json:"since_your_last_write" nullable:"false" doc:"What others wrote since your last write, oldest first"`
	}
}

func written(w Written, number string) *pactWrittenOut {
	out := &pactWrittenOut{}
	out.Body.Cursor, out.Body.Number, out.Body.News = w.Cursor, number, w.News
	if out.Body.News == nil {
		out.Body.News = []feedItem{}
	}
	return out
}

type pactPostIn struct {
	PactID string `path:"pact_id" format:"uuid" doc:"The pact's id"`
	Body   struct {
		Body    string `json:"body" maxLength:"20000" doc:"Never edited or deleted: to correct it, reply to it"`
		ReplyTo string `json:"reply_to,omitempty" maxLength:"20" example:"W-001"`
		Mark    string `json:"mark,omitempty" enum:"done,superseded" doc:"With reply_to naming your own message: its new status"`
	}
}

type pactSectionIn struct {
	PactID string `path:"pact_id" format:"uuid" doc:"The pact's id"`
	Key    string `path:"key" maxLength:"41" doc:"The zone: your own seat's key (any other is refused and recorded beside it)"`
	Body   struct {
		Body string `json:"body" maxLength:"20000"`
	}
}

type pactHandshakeIn struct {
	PactID string `path:"pact_id" format:"uuid" doc:"The pact's id"`
	Body   struct {
		Handshake string `json:"handshake" maxLength:"2000"`
	}
}

func (m *Module) registerWrites(api huma.API) {
	bad := []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}
	huma.Register(api, m.adminOp(http.MethodPost, "/pacts", "create",
		"Start a pact: you take its first seat and answer for it; others' seats wait for them", identity.Approver, bad...),
		func(ctx context.Context, in *pactCreateIn) (*pactCreatedOut, error) {
			b := in.Body
			payload := map[string]any{"project_id": b.ProjectID, "name": b.Name}
			out := &pactCreatedOut{}
			err := m.act(ctx, identity.Approver, "admin.pact.create", payload, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error {
				np := NewPact{ProjectID: b.ProjectID, Name: b.Name, Purpose: b.Purpose, Rules: b.Rules,
					Creator: SeatInput{Prefix: b.Prefix, DisplayName: b.DisplayName}}
				for _, s := range b.Invite {
					np.Invite = append(np.Invite, s.input())
				}
				id, w, err := m.svc.Create(ctx, tx, a, acc, a.Human, np)
				if id != "" {
					payload["pact_id"] = id
				}
				out.Body.PactID, out.Body.Cursor = id, w.Cursor
				return err
			})
			return out, err
		})
	huma.Register(api, m.adminOp(http.MethodPost, "/pacts/{pact_id}/join", "join",
		"Take the seat waiting for you in a pact", identity.Viewer, bad...),
		func(ctx context.Context, in *pactIDIn) (*pactWrittenOut, error) {
			var w Written
			err := m.act(ctx, identity.Viewer, "admin.pact.join", map[string]any{"pact_id": in.PactID},
				func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
					w, err = m.svc.Join(ctx, tx, a, acc, in.PactID)
					return err
				})
			return written(w, ""), err
		})
	huma.Register(api, m.adminOp(http.MethodPost, "/pacts/{pact_id}/messages", "post",
		"Post in a pact's thread from your seat", identity.Viewer, bad...),
		func(ctx context.Context, in *pactPostIn) (*pactWrittenOut, error) {
			var p Posted
			err := m.act(ctx, identity.Viewer, "admin.pact.post", map[string]any{"pact_id": in.PactID, "body": in.Body.Body,
				"reply_to": in.Body.ReplyTo, "mark": in.Body.Mark}, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
				p, err = m.svc.Post(ctx, tx, a, acc, in.PactID, Message{Body: in.Body.Body, ReplyTo: in.Body.ReplyTo, Mark: in.Body.Mark})
				return err
			})
			return written(p.Written, p.Number), err
		})
	huma.Register(api, m.adminOp(http.MethodPut, "/pacts/{pact_id}/sections/{key}", "write-section",
		"Replace your own zone of a pact", identity.Viewer, bad...),
		func(ctx context.Context, in *pactSectionIn) (*pactWrittenOut, error) {
			var w Written
			err := m.act(ctx, identity.Viewer, AdminSectionAction, map[string]any{"pact_id": in.PactID, "key": in.Key, "body": in.Body.Body},
				func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
					w, err = m.svc.UpdateSection(ctx, tx, a, acc, in.PactID, in.Key, in.Body.Body)
					return err
				})
			return written(w, ""), err
		})
	huma.Register(api, m.adminOp(http.MethodPut, "/pacts/{pact_id}/handshake", "write-handshake",
		"Replace your handshake note in a pact", identity.Viewer, bad...),
		func(ctx context.Context, in *pactHandshakeIn) (*pactWrittenOut, error) {
			var w Written
			err := m.act(ctx, identity.Viewer, "admin.pact.handshake", map[string]any{"pact_id": in.PactID, "handshake": in.Body.Handshake},
				func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
					w, err = m.svc.Handshake(ctx, tx, a, acc, in.PactID, in.Body.Handshake)
					return err
				})
			return written(w, ""), err
		})
}
