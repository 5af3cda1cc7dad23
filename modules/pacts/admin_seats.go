package pacts

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// What owners and approvers do to a pact's seats and the pact itself:
// invite, remove, pause, wake and close. None needs a seat of their own.

type pactInviteIn struct {
	PactID string `path:"pact_id" format:"uuid" doc:"The pact's id"`
	Body   pactSeatIn
}

type pactSeatKeyIn struct {
	PactID string `path:"pact_id" format:"uuid" doc:"The pact's id"`
	Key    string `path:"seat" pattern:"^@[a-z0-9][a-z0-9_-]{0,39}$" example:"@wanda" doc:"The seat's key"`
}

type pactCursorOut struct {
	Body struct {
		OK     bool  `json:"ok"`
		Cursor int64 `json:"cursor" doc:"The pact's feed after the change"`
	}
}

func cursorOut(c int64) *pactCursorOut {
	out := &pactCursorOut{}
	out.Body.OK, out.Body.Cursor = true, c
	return out
}

type pactRemovedOut struct{ Body SeatRemoved }

func (m *Module) registerSeats(api huma.API) {
	bad := []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}
	huma.Register(api, m.adminOp(http.MethodPost, "/pacts/{pact_id}/seats", "invite",
		"Invite an agent of the pact's project, or a person of the organization, to a new seat", identity.Approver, bad...),
		func(ctx context.Context, in *pactInviteIn) (*pactCursorOut, error) {
			var c int64
			err := m.act(ctx, identity.Approver, "admin.pact.invite", map[string]any{"pact_id": in.PactID, "agent_id": in.Body.AgentID,
				"human_id": in.Body.HumanID, "key": in.Body.Key, "prefix": in.Body.Prefix},
				func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
					c, err = m.svc.SeatFor(ctx, tx, a, acc, in.PactID, in.Body.input())
					return err
				})
			return cursorOut(c), err
		})
	huma.Register(api, m.adminOp(http.MethodPost, "/pacts/{pact_id}/seats/{seat}/remove", "remove-seat",
		"Remove a seat: it writes nothing more and what it wrote stays; warns when one voice is left", identity.Approver, bad...),
		func(ctx context.Context, in *pactSeatKeyIn) (*pactRemovedOut, error) {
			out := &pactRemovedOut{}
			err := m.act(ctx, identity.Approver, "admin.pact.remove_seat", map[string]any{"pact_id": in.PactID, "key": in.Key},
				func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
					out.Body, err = m.svc.RemoveSeat(ctx, tx, a, acc, in.PactID, in.Key)
					return err
				})
			return out, err
		})
	for _, paused := range []bool{true, false} {
		verb, summary := "wake", "Wake a seat's paused job"
		if paused {
			verb, summary = "pause", "Pause a seat's job: its writes are refused until woken"
		}
		huma.Register(api, m.adminOp(http.MethodPost, "/pacts/{pact_id}/seats/{seat}/"+verb, verb+"-seat", summary, identity.Approver, bad...),
			func(ctx context.Context, in *pactSeatKeyIn) (*pactCursorOut, error) {
				var c int64
				err := m.act(ctx, identity.Approver, "admin.pact."+verb+"_seat", map[string]any{"pact_id": in.PactID, "key": in.Key},
					func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
						c, err = m.svc.SetPaused(ctx, tx, a, acc, in.PactID, in.Key, paused)
						return err
					})
				return cursorOut(c), err
			})
	}
	huma.Register(api, m.adminOp(http.MethodPost, "/pacts/{pact_id}/close", "close",
		"Close a pact: it stays readable, accepts no writes and leaves the open-pact count", identity.Approver, bad...),
		func(ctx context.Context, in *pactIDIn) (*pactCursorOut, error) {
			p, err := kernel.SignedIn(ctx)
			if err != nil {
				return nil, err
			}
			c, err := m.closePact(ctx, p.ID, in.PactID)
			return cursorOut(c), err
		})
}

// closePact closes pact id as person by and returns the pact's feed cursor.
func (m *Module) closePact(ctx context.Context, by, id string) (c int64, err error) {
	err = m.actAs(ctx, by, identity.Approver, "admin.pact.close", map[string]any{"pact_id": id},
		func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
			c, err = m.svc.Close(ctx, tx, a, acc, id)
			return err
		})
	return c, err
}
