// Package audit is the Admin API's view of the log: the organization's
// entries with their payloads, erasing a payload (PDPA), and verifying the
// organization's hash chains. Every read is filtered by the signed-in
// person's organization, so another organization's entry answers exactly
// like a missing one.
package audit

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// maxBody bounds request bodies; no operation here takes one.
const maxBody = 1 << 10

// Module is the audit module.
type Module struct {
	db       *db.DB
	log      *ledger.Log
	identity *identity.Service
}

// New returns the audit module.
func New() *Module { return &Module{} }

// Name is "audit".
func (m *Module) Name() string { return "audit" }

// Register adds the module's Admin API operations.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.log, m.identity = h.DB(), h.Log(), h.Identity()
	api := h.Admin()
	huma.Register(api, op(http.MethodGet, "/entries", "list-entries", "List the organization's log entries, newest first",
		identity.Viewer, http.StatusBadRequest), m.listEntries)
	huma.Register(api, op(http.MethodPost, "/entries/{entry_id}/erase", "erase-entry",
		"Erase an entry's payload (PDPA); the entry and its hash stay, so the chain still verifies", identity.Owner,
		http.StatusNotFound), m.erase)
	huma.Register(api, op(http.MethodGet, "/log/chains", "list-chains", "List the organization's hash chains with their sizes",
		identity.Viewer), m.listChains)
	huma.Register(api, op(http.MethodGet, "/log/verify", "verify-log", "Verify the organization's hash chains, or one of them",
		identity.Viewer, http.StatusNotFound), m.verify)
	return nil
}

// op is an operation of this module: ids are audit-<verb>[-<noun>], the
// tag is "audit", and AdminOp declares the role gate.
func op(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	return kernel.AdminOp(huma.Operation{OperationID: "audit-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"audit"}, Errors: errors, MaxBodyBytes: maxBody}, min)
}

type listEntriesIn struct {
	Project string `query:"project" maxLength:"63" doc:"Only entries of this project"`
	Agent   string `query:"agent" maxLength:"63" doc:"Only entries of this agent"`
	Action  string `query:"action" maxLength:"100" doc:"Only entries of this action, e.g. pact_post"`
	Outcome string `query:"outcome" maxLength:"100" doc:"Only entries with this outcome: ok or an error code"`
	Task    string `query:"task" maxLength:"36" doc:"Only entries of this task (its UUID)"`
	Refused bool   `query:"refused" doc:"Only refusals (refused=1): outcome is not ok"`
	Before  int64  `query:"before" minimum:"0" doc:"Only entries with an id below this one, to page back"`
	From    string `query:"from" maxLength:"64" doc:"Only entries at or after this instant: ISO 8601 with an offset"`
	To      string `query:"to" maxLength:"64" doc:"Only entries at or before this instant: ISO 8601 with an offset"`
	Limit   int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"At most this many entries"`
}

type entriesOut struct {
	Body struct {
		Entries []ledger.Record `json:"entries" nullable:"false"`
	}
}

// instant parses an ISO 8601 instant with an offset. A query string's "+"
// arrives as a space, so a space is read as "+".
func instant(name, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ReplaceAll(s, " ", "+"))
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "%s must be an ISO 8601 instant with an offset, e.g. 2026-01-31T09:00:00Z", name)
	}
	return &t, nil
}

func (m *Module) listEntries(ctx context.Context, in *listEntriesIn) (*entriesOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	f := ledger.Filter{OrgID: p.OrgID, ProjectID: in.Project, AgentID: in.Agent, Action: in.Action, Outcome: in.Outcome,
		Refused: in.Refused, Before: in.Before, Limit: in.Limit}
	if f.Limit == 0 {
		f.Limit = 100
	}
	if in.Task != "" {
		if _, err := uuid.Parse(in.Task); err != nil {
			return nil, errs.E(errs.InvalidRequest, "task must be a task id (a UUID)")
		}
		f.TaskID = in.Task
	}
	if f.From, err = instant("from", in.From); err != nil {
		return nil, err
	}
	if f.To, err = instant("to", in.To); err != nil {
		return nil, err
	}
	out := &entriesOut{}
	out.Body.Entries, err = m.log.Entries(ctx, m.db, f)
	return out, err
}

type eraseIn struct {
	EntryID int64 `path:"entry_id" minimum:"1" doc:"The entry's id"`
}

type eraseOut struct {
	Body struct {
		Erased bool `json:"erased" doc:"false when the payload was erased before"`
	}
}

func (m *Module) erase(ctx context.Context, in *eraseIn) (*eraseOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &eraseOut{}
	out.Body.Erased, err = m.ErasePayload(ctx, p.ID, in.EntryID)
	return out, err
}

type chainsOut struct {
	Body struct {
		Chains []ledger.ChainSize `json:"chains" nullable:"false" doc:"The organization's chains, by key"`
	}
}

func (m *Module) listChains(ctx context.Context, _ *struct{}) (*chainsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &chainsOut{}
	out.Body.Chains, err = m.log.Chains(ctx, m.db, p.OrgID)
	return out, err
}

type verifyIn struct {
	Chain string `query:"chain" maxLength:"200" doc:"Verify only this chain (a chain_key from GET /log/chains), so a client can show progress chain by chain; absent verifies them all"`
}

type verifyOut struct {
	Body struct {
		Verdicts []ledger.Verdict `json:"verdicts" nullable:"false" doc:"One per chain verified, by chain key"`
	}
}

func (m *Module) verify(ctx context.Context, in *verifyIn) (*verifyOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &verifyOut{}
	if in.Chain == "" {
		out.Body.Verdicts, err = m.log.VerifyOrg(ctx, m.db, p.OrgID, nil)
		return out, err
	}
	// Another organization's chain answers as one that does not exist.
	keys, err := m.log.ChainKeys(ctx, m.db, p.OrgID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(keys, in.Chain) {
		return nil, errs.E(errs.NotFound, "chain %s is not one of this organization's chains (GET /log/chains lists them)", in.Chain)
	}
	v, err := m.log.VerifyChain(ctx, m.db, in.Chain, nil)
	if err != nil {
		return nil, err
	}
	out.Body.Verdicts = []ledger.Verdict{v}
	return out, nil
}
