package pacts

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// The Admin API's pact operations (docs/pacts.md "People's side"): the
// Jobs list, a pact with its thread and record, "Questions for you" and
// the answers, what people change, and the settings. Each is an adapter
// over the Service, as the MCP tools are; every write goes through
// ident.Act, so it and every refused one is on the project's log with a
// payload naming the pact (the pact's record reads them by pact_id).

// pactBody bounds request bodies: a message or section is at most 20,000
// characters of up to four bytes each, JSON-escaped.
const pactBody = 256 << 10

// adminOp is an operation of this module: ids are pacts-<verb>[-<noun>],
// the tag is "pacts", and AdminOp declares the role gate.
func adminOp(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	return kernel.AdminOp(huma.Operation{OperationID: "pacts-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"pacts"}, Errors: errors, MaxBodyBytes: pactBody}, min)
}

// registerAdmin adds the people's side: the Admin API's pact operations
// and the unread-nudge worker.
func (m *Module) registerAdmin(h *kernel.Host) {
	h.Worker("nudges", m.nudgeLoop(h.Logger()))
	api := h.Admin()
	m.registerReads(api)
	m.registerWrites(api)
	m.registerSeats(api)
	m.registerDecisions(api)
	m.registerSettings(api)
}

// asPerson runs fn for the signed-in person in a transaction, reaching
// every project of their organization: the Admin API's reads.
func (m *Module) asPerson(ctx context.Context, fn func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error) error {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return err
	}
	return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		acc, err := m.svc.PersonAccess(ctx, tx, p.OrgID, nil)
		if err != nil {
			return err
		}
		return fn(ctx, tx, Actor{Human: p.ID, Org: p.OrgID}, acc)
	})
}

// act runs a person's write fn through ident.Act: gated at role min,
// logged as action with payload (which names the pact), on the chain of
// the pact's project once fn reaches it; a refusal is logged too.
func (m *Module) act(ctx context.Context, min identity.Role, action string, payload map[string]any,
	fn func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error) error {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return err
	}
	return m.ident.Act(ctx, p.ID, min, action, payload, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		acc, err := m.svc.PersonAccess(ctx, tx, p.OrgID, func(project string) { e.ProjectID = project })
		if err != nil {
			return err
		}
		return fn(ctx, tx, Actor{Human: p.ID, Org: p.OrgID}, acc)
	})
}

type pactIDIn struct {
	PactID string `path:"pact_id" format:"uuid" doc:"The pact's id"`
}

type pactJobsIn struct {
	ProjectID string `query:"project_id" pattern:"^([a-z0-9][a-z0-9-]{0,62})?$" doc:"Only this project's pacts; absent: every project"`
}

type pactJobsOut struct {
	Body struct {
		Pacts []PactJob `json:"pacts" nullable:"false" doc:"Open pacts first, the most recently active first"`
	}
}

type pactGetOut struct {
	Body struct {
		Pact       PactView `json:"pact" doc:"Zones, seats, every decision, and the latest 50 messages"`
		NextBefore int64    `json:"next_before" doc:"The cursor of the thread's older page (GET …/messages?before=); 0 when there is none"`
	}
}

type pactPageIn struct {
	PactID string `path:"pact_id" format:"uuid" doc:"The pact's id"`
	Before int64  `query:"before" minimum:"0" doc:"A cursor from the previous page (next_before); 0 or absent: the latest"`
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"How many, 1-200"`
}

type pactThreadOut struct{ Body ThreadPage }

type pactEntriesOut struct {
	Body struct {
		Entries    []ledger.Record `json:"entries" nullable:"false" doc:"Newest first"`
		NextBefore int64           `json:"next_before" doc:"Pass as before for older entries; 0 when there are none"`
	}
}

type pactChangesIn struct {
	Before int64 `query:"before" minimum:"0" doc:"A cursor from the previous page (next_before); 0 or absent: the newest"`
	Limit  int   `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"How many, 1-200"`
}

func (m *Module) registerReads(api huma.API) {
	huma.Register(api, adminOp(http.MethodGet, "/pacts", "list", "The Jobs list: every pact of the organization",
		identity.Viewer), func(ctx context.Context, in *pactJobsIn) (*pactJobsOut, error) {
		out := &pactJobsOut{}
		return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
			out.Body.Pacts, err = m.svc.Jobs(ctx, tx, a, acc, in.ProjectID)
			return err
		})
	})
	huma.Register(api, adminOp(http.MethodGet, "/pacts/changes", "changes",
		"What the agents changed this week: their writes of the last seven days, from the log", identity.Viewer),
		func(ctx context.Context, in *pactChangesIn) (*pactEntriesOut, error) {
			out := &pactEntriesOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, _ Access) (err error) {
				out.Body.Entries, out.Body.NextBefore, err = m.svc.Changes(ctx, tx, a, in.Before, in.Limit)
				return err
			})
		})
	huma.Register(api, adminOp(http.MethodGet, "/pacts/{pact_id}", "get",
		"A pact: its seats, zones, decisions and the latest page of its thread", identity.Viewer, http.StatusNotFound),
		func(ctx context.Context, in *pactIDIn) (*pactGetOut, error) {
			out := &pactGetOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error {
				v, err := m.svc.Get(ctx, tx, a, acc, in.PactID, 0)
				if err != nil {
					return err
				}
				out.Body.Pact = *v
				if len(v.Messages) > 0 && v.MessageCount > len(v.Messages) {
					out.Body.NextBefore = v.Messages[0].FeedID
				}
				return nil
			})
		})
	huma.Register(api, adminOp(http.MethodGet, "/pacts/{pact_id}/messages", "thread",
		"A page of a pact's thread, oldest first", identity.Viewer, http.StatusNotFound),
		func(ctx context.Context, in *pactPageIn) (*pactThreadOut, error) {
			out := &pactThreadOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
				out.Body, err = m.svc.Thread(ctx, tx, a, acc, in.PactID, in.Before, in.Limit)
				return err
			})
		})
	huma.Register(api, adminOp(http.MethodGet, "/pacts/{pact_id}/record", "record",
		"A pact's record: every write to it and every refused one, with who tried it, from the project's log",
		identity.Viewer, http.StatusNotFound), func(ctx context.Context, in *pactPageIn) (*pactEntriesOut, error) {
		out := &pactEntriesOut{}
		return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
			out.Body.Entries, out.Body.NextBefore, err = m.svc.Record(ctx, tx, a, acc, in.PactID, in.Before, in.Limit)
			return err
		})
	})
}
