package mandates

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// mandateBody bounds mandate request bodies: a scope list and a few limits.
const mandateBody = 64 << 10

// registerMandateAdmin adds the Admin API's mandate operations (list, issue,
// impact, revoke, replace).
func (m *Module) registerMandateAdmin(api huma.API) {
	huma.Register(api, mandateOp(http.MethodGet, "/mandates", "list-mandates",
		"List the live (or all) mandates held by the organization's agents", identity.Viewer), m.adminListMandates)
	huma.Register(api, mandateOp(http.MethodPost, "/mandates", "issue-mandate", "Issue a further root mandate to an agent",
		identity.Approver, http.StatusBadRequest, http.StatusNotFound), m.adminIssueMandate)
	huma.Register(api, mandateOp(http.MethodGet, "/mandates/{mandate_id}/impact", "get-mandate-impact",
		"What revoking a mandate would stop (changes nothing)", identity.Viewer, http.StatusNotFound), m.adminMandateImpact)
	huma.Register(api, mandateOp(http.MethodPost, "/mandates/{mandate_id}/revoke", "revoke-mandate",
		"Revoke a mandate and everything under it; its open tasks are canceled", identity.Approver, http.StatusNotFound), m.adminRevokeMandate)
	huma.Register(api, mandateOp(http.MethodPost, "/mandates/{mandate_id}/replace", "replace-mandate",
		"Replace a live root mandate, optionally revoking the old one", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound), m.adminReplaceMandate)
}

// mandateOp is a mandate operation of this module: ids are
// board-<verb>-mandate and the tag is "board", as when the board served
// them, so clients and the OpenAPI document keep them; AdminOp declares the
// role gate with the 401 and 403 answers.
func mandateOp(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	o := huma.Operation{OperationID: "board-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"board"}, Errors: errors, MaxBodyBytes: mandateBody}
	if id == "issue-mandate" {
		o.DefaultStatus = http.StatusCreated
	}
	return kernel.AdminOp(o, min)
}

// MandateTask is the task a mandate was delegated for.
type MandateTask struct {
	ID     string `json:"id" format:"uuid"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// MandateView is a mandate as people see it.
type MandateView struct {
	ID              string             `json:"id" format:"uuid"`
	ParentID        *string            `json:"parent_id" format:"uuid" doc:"null for a root mandate, issued by a person"`
	IssuerKind      string             `json:"issuer_kind" enum:"human,agent"`
	Issuer          string             `json:"issuer" doc:"The person (root) or agent (below) that issued it"`
	Holder          string             `json:"holder" doc:"The agent holding it"`
	Scope           []string           `json:"scope" nullable:"false"`
	Limits          map[string]float64 `json:"limits" doc:"Cumulative ceilings, shared by everything delegated under it"`
	DelegationsLeft int                `json:"delegations_left"`
	Depth           int                `json:"depth"`
	ExpiresAt       time.Time          `json:"expires_at"`
	RevokedAt       *time.Time         `json:"revoked_at"`
	CreatedAt       time.Time          `json:"created_at"`
	Format          string             `json:"format" enum:"pact,tenuo,biscuit" doc:"pact, or the credential format it was imported from"`
	ExportedAs      *string            `json:"exported_as" doc:"The credential format it was exported as, if any"`
	ExternalID      *string            `json:"external_id"`
	IssuerPrincipal *string            `json:"issuer_principal" doc:"The trusted root that issued an imported mandate"`
	// RevocationPublished is derived: some outside id minted for the mandate
	// is on a published revocation list.
	RevocationPublished bool               `json:"revocation_published" doc:"Some credential id minted for it is on a published revocation list"`
	Usage               map[string]float64 `json:"usage" doc:"Amount used of each limited key"`
	Task                *MandateTask       `json:"task" doc:"The task it was delegated for, if any"`
}

type listMandatesIn struct {
	All bool `query:"all" doc:"true (or 1) lists revoked and expired mandates too"`
}

type listMandatesOut struct {
	Body struct {
		Mandates []MandateView `json:"mandates" nullable:"false"`
	}
}

type issueMandateIn struct {
	Body struct {
		Holder      string             `json:"holder" pattern:"^[a-z0-9][a-z0-9-]{0,62}$" doc:"The agent that will hold it"`
		Scope       []string           `json:"scope" maxItems:"100" example:"[\"task.work@project:web\"]" doc:"action@project:p, … within the holder's projects"`
		Limits      map[string]float64 `json:"limits,omitempty"`
		Delegations *int               `json:"delegations,omitempty" minimum:"0" maximum:"5" doc:"Levels the holder may delegate below it; default 1"`
		Days        float64            `json:"days,omitempty" doc:"Term in days, more than 0 and at most 365; default 30"`
	}
}

type mandateIDOut struct {
	Body struct {
		MandateID string `json:"mandate_id" format:"uuid"`
	}
}

// mandatePath names a mandate by its canonical spelling; any other spelling
// is refused before the handler runs.
type mandatePath struct {
	MandateID string `path:"mandate_id" pattern:"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$" doc:"A mandate id"`
}

// ImpactMandate is a live mandate under the one being revoked.
type ImpactMandate struct {
	ID     string `json:"id" format:"uuid"`
	Holder string `json:"holder"`
	Depth  int    `json:"depth" doc:"Levels below the mandate being revoked"`
}

// ImpactTask is an open task a revocation would cancel.
type ImpactTask struct {
	ID       string  `json:"id" format:"uuid"`
	Title    string  `json:"title"`
	Status   string  `json:"status"`
	Assignee *string `json:"assignee"`
}

// Impact is what revoking a mandate would reach.
type Impact struct {
	MandateID   string          `json:"mandate_id" format:"uuid"`
	Descendants []ImpactMandate `json:"descendants" nullable:"false" doc:"Live mandates delegated under it"`
	Tasks       []ImpactTask    `json:"tasks" nullable:"false" doc:"Open tasks that would be canceled, oldest first"`
	Agents      []string        `json:"agents" nullable:"false" doc:"Agents that would lose authority, sorted"`
}

type impactOut struct{ Body Impact }

type revokeMandateOut struct {
	Body struct {
		MandateID          string    `json:"mandate_id" format:"uuid"`
		DescendantMandates int       `json:"descendant_mandates"`
		TasksStopped       int       `json:"tasks_stopped" doc:"Open tasks canceled, including those under the delegated mandates of canceled tasks"`
		RevokedAt          time.Time `json:"revoked_at"`
	}
}

type replaceMandateIn struct {
	MandateID string `path:"mandate_id" pattern:"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$" doc:"A live root mandate"`
	Body      struct {
		Scope       []string           `json:"scope" maxItems:"100" example:"[\"task.work@project:web\"]" doc:"action@project:p, … within the holder's projects"`
		Limits      map[string]float64 `json:"limits,omitempty" doc:"Default: the old root's"`
		Delegations *int               `json:"delegations,omitempty" minimum:"0" maximum:"5" doc:"Default: the old root's"`
		Days        float64            `json:"days,omitempty" doc:"Term in days, more than 0 and at most 365; default 30"`
		Revoke      bool               `json:"revoke,omitempty" doc:"Revoke the old root and everything under it (its open tasks are canceled); otherwise it runs until it expires"`
	}
}

type replaceMandateOut struct {
	Body struct {
		MandateID          string `json:"mandate_id" format:"uuid" doc:"The new root mandate, now the agent's root_mandate_id"`
		Replaced           string `json:"replaced" format:"uuid"`
		Revoked            bool   `json:"revoked"`
		DescendantMandates int    `json:"descendant_mandates"`
		TasksStopped       int    `json:"tasks_stopped"`
	}
}

func (m *Module) adminListMandates(ctx context.Context, in *listMandatesIn) (*listMandatesOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &listMandatesOut{}
	out.Body.Mandates, err = m.listMandates(ctx, m.db, p.OrgID, in.All)
	return out, err
}

func (m *Module) adminIssueMandate(ctx context.Context, in *issueMandateIn) (*mandateIDOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	md, err := m.IssueMandate(ctx, p.ID, IssueInput{Holder: b.Holder, Scope: b.Scope, Limits: b.Limits,
		Delegations: b.Delegations, Days: b.Days})
	if err != nil {
		return nil, err
	}
	out := &mandateIDOut{}
	out.Body.MandateID = md.ID.String()
	return out, nil
}

func (m *Module) adminMandateImpact(ctx context.Context, in *mandatePath) (*impactOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	imp, err := m.RevokeImpact(ctx, p, in.MandateID)
	if err != nil {
		return nil, err
	}
	return &impactOut{Body: *imp}, nil
}

func (m *Module) adminRevokeMandate(ctx context.Context, in *mandatePath) (*revokeMandateOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	r, err := m.RevokeMandate(ctx, p.ID, in.MandateID)
	if err != nil {
		return nil, err
	}
	out := &revokeMandateOut{}
	out.Body.MandateID, out.Body.DescendantMandates, out.Body.RevokedAt = r.MandateID.String(), r.DescendantMandates, r.RevokedAt
	out.Body.TasksStopped = len(r.TasksStopped)
	return out, nil
}

func (m *Module) adminReplaceMandate(ctx context.Context, in *replaceMandateIn) (*replaceMandateOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	r, err := m.ReplaceMandate(ctx, p.ID, in.MandateID, ReplaceInput{Scope: b.Scope, Limits: b.Limits,
		Delegations: b.Delegations, Days: b.Days, Revoke: b.Revoke})
	if err != nil {
		return nil, err
	}
	out := &replaceMandateOut{}
	out.Body.MandateID, out.Body.Replaced, out.Body.Revoked = r.MandateID.String(), r.Replaced.String(), r.Revoked
	out.Body.DescendantMandates, out.Body.TasksStopped = r.DescendantMandates, len(r.TasksStopped)
	return out, nil
}
