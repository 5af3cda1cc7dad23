package pacts

import (
	"context"
	"net/http"
	"strings"

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
// the tag is "pacts", and AdminOp declares the role gate. An operation on
// one pact or decision that needs more than a viewer has the gate's
// refusals recorded too (recordRefused), so a person below its role who
// tries it is on the pact's record like every other refused write.
func (m *Module) adminOp(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	op := kernel.AdminOp(huma.Operation{OperationID: "pacts-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"pacts"}, Errors: errors, MaxBodyBytes: pactBody}, min)
	if min != identity.Viewer && (strings.Contains(path, "{pact_id}") || strings.Contains(path, "{decision_id}")) {
		op = kernel.RecordRefusals(op, m.recordRefused("admin.pact."+strings.ReplaceAll(id, "-", "_")))
	}
	return op
}

// recordRefused logs the gate's refusal of action as the handler's own
// refusals are logged: on the pact's project chain, with a payload naming
// the pact (and the decision or seat) when the pact is the person's
// organization's.
func (m *Module) recordRefused(action string) kernel.RefusalRecorder {
	return func(ctx context.Context, p *identity.Person, param func(string) string, refusal error) error {
		payload := map[string]any{}
		for name, field := range map[string]string{"decision_id": "decision_id", "seat": "key"} {
			if v := param(name); v != "" {
				payload[field] = v
			}
		}
		e := ledger.Entry{Actor: "human:" + p.ID, OrgID: p.OrgID, Action: action, Payload: payload}
		pact, project, err := m.svc.Locate(ctx, m.db, p.OrgID, param("pact_id"), param("decision_id"))
		if err != nil {
			return err
		}
		if pact != "" {
			payload["pact_id"], e.ProjectID = pact, project
		}
		if err := m.log.RecordRefusal(ctx, m.db, e, refusal); err != refusal {
			return err
		}
		return nil
	}
}

// registerAdmin adds the people's side: the Admin API's pact operations
// and the unread-nudge worker.
func (m *Module) registerAdmin(h *kernel.Host) {
	h.Worker("nudges", m.nudgeLoop(h.Logger()))
	api := h.Admin()
	m.registerReads(api)
	m.registerWrites(api)
	m.registerSeats(api)
	m.registerUndo(api)
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
	return m.readAs(ctx, p, fn)
}

// readAs runs a read fn for person p in a transaction, reaching every
// project of their organization.
func (m *Module) readAs(ctx context.Context, p *identity.Person, fn func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error) error {
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
	return m.actAs(ctx, p.ID, min, action, payload, fn)
}

// actAs is act for person by.
func (m *Module) actAs(ctx context.Context, by string, min identity.Role, action string, payload map[string]any,
	fn func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error) error {
	return m.ident.Act(ctx, by, min, action, payload, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
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

type pactChangesOut struct {
	Body struct {
		Changes    []Change `json:"changes" nullable:"false" doc:"Newest first, each with who said yes and its Undo"`
		NextBefore int64    `json:"next_before" doc:"Pass as before for older changes; 0 when there are none"`
	}
}

type pactUndoIn struct {
	EntryID int64 `path:"entry_id" minimum:"1" doc:"The change's log entry id (a row of GET /pacts/changes)"`
}

type pactUndoOut struct{ Body Undone }

// registerUndo adds Undo of an agent's change (docs/pacts.md, "Undo"):
// the service decides what it does; the person's act logs it, its payload
// naming the entry and the pact.
func (m *Module) registerUndo(api huma.API) {
	huma.Register(api, m.adminOp(http.MethodPost, "/pacts/changes/{entry_id}/undo", "undo-change",
		"Undo an agent's change where it can be undone: restore the zone or handshake it replaced, or wake the job it paused",
		identity.Approver, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict),
		func(ctx context.Context, in *pactUndoIn) (*pactUndoOut, error) {
			p, err := kernel.SignedIn(ctx)
			if err != nil {
				return nil, err
			}
			out := &pactUndoOut{}
			out.Body, err = m.undoChange(ctx, p.ID, in.EntryID)
			return out, err
		})
}

// undoChange undoes the agent's change logged as entry id, as person by
// (an approver at least), logged as admin.pact.undo with the entry and
// the pact it was in: for the Admin API and pact-admin's pact-undo.
func (m *Module) undoChange(ctx context.Context, by string, id int64) (Undone, error) {
	var out Undone
	payload := map[string]any{"entry_id": id}
	err := m.actAs(ctx, by, identity.Approver, "admin.pact.undo", payload, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
		out, err = m.svc.Undo(ctx, tx, a, acc, id)
		if out.PactID != "" {
			payload["pact_id"] = out.PactID
		}
		return err
	})
	return out, err
}

func (m *Module) registerReads(api huma.API) {
	huma.Register(api, m.adminOp(http.MethodGet, "/pacts", "list", "The Jobs list: every pact of the organization",
		identity.Viewer), func(ctx context.Context, in *pactJobsIn) (*pactJobsOut, error) {
		out := &pactJobsOut{}
		return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
			out.Body.Pacts, err = m.svc.Jobs(ctx, tx, a, acc, in.ProjectID)
			return err
		})
	})
	huma.Register(api, m.adminOp(http.MethodGet, "/pacts/changes", "changes",
		"What the agents changed this week: their writes of the last seven days, from the log", identity.Viewer),
		func(ctx context.Context, in *pactChangesIn) (*pactChangesOut, error) {
			out := &pactChangesOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, _ Access) (err error) {
				out.Body.Changes, out.Body.NextBefore, err = m.svc.Changes(ctx, tx, a, in.Before, in.Limit)
				return err
			})
		})
	huma.Register(api, m.adminOp(http.MethodGet, "/pacts/{pact_id}", "get",
		"A pact: its seats, zones, decisions and the latest page of its thread", identity.Viewer, http.StatusNotFound),
		func(ctx context.Context, in *pactIDIn) (*pactGetOut, error) {
			out := &pactGetOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error {
				v, before, err := m.svc.Latest(ctx, tx, a, acc, in.PactID)
				if err == nil {
					out.Body.Pact, out.Body.NextBefore = *v, before
				}
				return err
			})
		})
	huma.Register(api, m.adminOp(http.MethodGet, "/pacts/{pact_id}/messages", "thread",
		"A page of a pact's thread, oldest first", identity.Viewer, http.StatusNotFound),
		func(ctx context.Context, in *pactPageIn) (*pactThreadOut, error) {
			out := &pactThreadOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
				out.Body, err = m.svc.Thread(ctx, tx, a, acc, in.PactID, in.Before, in.Limit)
				return err
			})
		})
	huma.Register(api, m.adminOp(http.MethodGet, "/pacts/{pact_id}/record", "record",
		"A pact's record: every write to it and every refused one, with who tried it, from the project's log",
		identity.Viewer, http.StatusNotFound), func(ctx context.Context, in *pactPageIn) (*pactEntriesOut, error) {
		out := &pactEntriesOut{}
		return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
			out.Body.Entries, out.Body.NextBefore, err = m.svc.Record(ctx, tx, a, acc, in.PactID, in.Before, in.Limit)
			return err
		})
	})
}
