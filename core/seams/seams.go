// Package seams declares the seams between modules: what one module asks
// of another, or tells the others, without importing it and without reading
// its tables (docs/architecture.md, "Table ownership" and "Hooks instead of
// imports"). Each is a typed key, a constant, plus the Go type that flows
// through it; the kernel keeps them (kernel.Seam, kernel.Hook) and knows
// none of them.
//
// A Seam has one provider, which calls kernel.Provide at Register, and any
// number of users, which keep the lookup kernel.Use (or kernel.UseOr, with
// the default declared here) returns at Register and ask it at call time,
// whatever order the modules registered in. A Hook has one publisher, which
// keeps kernel.Publisher's function and calls it inside its transaction,
// and any number of subscribers (kernel.Subscribe), run in the order they
// subscribed; the first error stops them and rolls the publisher's
// transaction back.
package seams

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
)

// BoardFactsSeam is what another module may ask of the board about its
// tasks. Provided by modules/board; used by modules/people (the listings'
// open-task counts). With no board a question is refused as unavailable.
const BoardFactsSeam kernel.Seam[BoardFacts] = "the board's facts"

// BoardFacts is the board's answer through BoardFactsSeam.
type BoardFacts interface {
	// OpenTaskCounts returns how many open tasks (task_status_is_open, see
	// migrations/010_table_owners.sql) each of projectIDs has, read in tx.
	// Every id asked for is in the result, 0 when it has none.
	OpenTaskCounts(ctx context.Context, tx bun.IDB, projectIDs []string) (map[string]int, error)
}

// AgentKeysSeam is what the module that keeps agents' public keys tells
// the others about them. Provided by modules/credentials; used by
// modules/people (the agents' listing), with NoAgentKeys as the default.
const AgentKeysSeam kernel.Seam[AgentKeys] = "agents' keys"

// AgentKeys is the keeper's answer through AgentKeysSeam.
type AgentKeys interface {
	// LiveKeyCounts returns how many unrevoked keys each of agentIDs has,
	// read in tx; an agent without any may be missing from the result.
	LiveKeyCounts(ctx context.Context, tx bun.IDB, agentIDs []string) (map[string]int, error)
}

// NoAgentKeys is AgentKeysSeam's default: with no keeper, agents have no keys.
type NoAgentKeys struct{}

// LiveKeyCounts counts none.
func (NoAgentKeys) LiveKeyCounts(context.Context, bun.IDB, []string) (map[string]int, error) {
	return map[string]int{}, nil
}

// SlackWebhooksSeam is what the module that delivers notifications does
// with an organization's Slack webhook URL, a secret only it reads back.
// Provided by modules/notify; used by modules/people (the organization's
// settings set it and show its hint). With no notify a call is refused as
// unavailable.
const SlackWebhooksSeam kernel.Seam[SlackWebhooks] = "Slack webhooks"

// SlackWebhooks is the keeper's answer through SlackWebhooksSeam.
type SlackWebhooks interface {
	// SetSlackWebhook seals url for org and stores it in tx; "" removes it.
	SetSlackWebhook(ctx context.Context, tx bun.IDB, org, url string) error
	// SlackHint is "…" and the URL's last 4 characters, or a note saying it
	// no longer opens; nil when org has none.
	SlackHint(ctx context.Context, tx bun.IDB, org string) (*string, error)
}

// MandateTasksSeam is what the module that owns tasks tells mandate
// administration about the tasks that hang on mandates. Provided by
// modules/board; used by modules/mandates, with NoMandateTasks as the
// default: a board without tasks has no task hanging on a mandate.
const MandateTasksSeam kernel.Seam[MandateTasks] = "the tasks under mandates"

// MandateTasks is the board's answer through MandateTasksSeam.
type MandateTasks interface {
	// OpenTasksUnder lists the open tasks whose own, assignee or delegated
	// mandate is one of mandateIDs, oldest first: what revoking them would
	// cancel (docs/specs/behavior.md §5.6).
	OpenTasksUnder(ctx context.Context, tx bun.IDB, mandateIDs []string) ([]TaskBrief, error)
	// DelegatedFor returns, for each of mandateIDs delegated with a task, the
	// first task it was delegated for.
	DelegatedFor(ctx context.Context, tx bun.IDB, mandateIDs []string) (map[string]TaskBrief, error)
}

// TaskBrief is a task as mandate administration shows it.
type TaskBrief struct {
	ID       string  `bun:"id" json:"id" format:"uuid"`
	Title    string  `bun:"title" json:"title"`
	Status   string  `bun:"status" json:"status"`
	Assignee *string `bun:"assignee" json:"assignee"`
}

// NoMandateTasks is MandateTasksSeam's default: no task hangs on any mandate.
type NoMandateTasks struct{}

// OpenTasksUnder lists none.
func (NoMandateTasks) OpenTasksUnder(context.Context, bun.IDB, []string) ([]TaskBrief, error) {
	return []TaskBrief{}, nil
}

// DelegatedFor finds none.
func (NoMandateTasks) DelegatedFor(context.Context, bun.IDB, []string) (map[string]TaskBrief, error) {
	return map[string]TaskBrief{}, nil
}

// MandateCredentialsSeam is what the module that mints outside credentials
// tells mandate administration about them. Provided by
// modules/credentials; used by modules/mandates, with NoMandateCredentials
// as the default.
const MandateCredentialsSeam kernel.Seam[MandateCredentials] = "the credentials minted under mandates"

// MandateCredentials is the minter's answer through MandateCredentialsSeam.
type MandateCredentials interface {
	// RevocationsPublished returns the mandates among mandateIDs some outside
	// credential id minted for which is on a published revocation list.
	RevocationsPublished(ctx context.Context, tx bun.IDB, mandateIDs []string) (map[string]bool, error)
}

// NoMandateCredentials is MandateCredentialsSeam's default: nothing was
// minted, so nothing was published.
type NoMandateCredentials struct{}

// RevocationsPublished finds none.
func (NoMandateCredentials) RevocationsPublished(context.Context, bun.IDB, []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

// AgentRootsSeam is what the module that keeps agents does when another
// issues an agent a new root mandate to answer with. Provided by
// modules/people; used by modules/mandates (replacing a root). With no
// provider a replacement is refused as unavailable.
const AgentRootsSeam kernel.Seam[AgentRoots] = "agents' root mandates"

// AgentRoots is the keeper's answer through AgentRootsSeam.
type AgentRoots interface {
	// SetRootMandate makes mandate id, just issued to agent in tx, the root
	// mandate agent answers with.
	SetRootMandate(ctx context.Context, tx bun.IDB, agent string, id uuid.UUID) error
}

// OrgCreatedHook is "an organization was created". Published by
// modules/people's sign-up, inside the transaction that creates the
// organization, so an error rolls the creation back (as
// mandate.Service.OnRevoke's hooks do for a revoke); modules/board
// subscribes and seeds its default approval rules (docs/specs/behavior.md
// §5.8).
const OrgCreatedHook kernel.Hook[OrgCreated] = "organization created"

// OrgCreated is the event of OrgCreatedHook.
type OrgCreated struct {
	OrgID string
}

// ClaimedHook is "a task was claimed", for the modules that add to a
// claim's answer (an exported credential) without the board knowing them.
// Published by modules/board in the claim's transaction; modules/credentials
// subscribes. A subscriber must never fail the claim: one that cannot do its
// part says why in the fields it adds and returns nil.
const ClaimedHook kernel.Hook[Claimed] = "task claimed"

// Claimed is the event of ClaimedHook.
type Claimed struct {
	AgentID   string
	TaskID    string
	ProjectID string
	// MandateID is the chain's leaf the claim was made with; the chain has
	// been verified in this transaction.
	MandateID string
	// Answer is the claim's answer, which subscribers add to. It is typed
	// (pact_claim's output schema, docs/mcp-tools.json): it carries the
	// fields it declares, credential and credential_note, and no others.
	Answer map[string]any
}
