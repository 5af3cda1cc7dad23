package outbox

import (
	"fmt"
	"strings"
)

// Audience is who a kind of notification is addressed to: the people its
// inbox rows go to (docs/notifications.md, "Who is told"). Whatever the
// audience, only people of the notification's organization are told, each
// once. A disabled person is told too and reads nothing until enabled
// again: the Admin API and the live stream refuse them meanwhile, and
// modules/notify sends nothing addressed to them alone.
type Audience string

// The audiences.
const (
	// ThePerson is the one person the notification names (HumanID); with
	// none named, the organization's owners.
	ThePerson Audience = "the_person"
	// Deciders are the organization's owners and approvers: the people who
	// can approve, resume or answer.
	Deciders Audience = "deciders"
	// AskedPeople are the owners and approvers among the owners of the
	// agent that asked and of the agent that posted the task; when none of
	// them can answer (or all of those are disabled), every decider.
	AskedPeople Audience = "asked_people"
	// AgentOwner is the owner of the notification's agent; with no agent,
	// the deciders.
	AgentOwner Audience = "agent_owner"
	// TaskPeople are the owners of the agent that posted the task and of
	// the notification's agent.
	TaskPeople Audience = "task_people"
	// ProjectPeople are the organization's owners and the owners of the
	// agents working in the project.
	ProjectPeople Audience = "project_people"
	// MandatePeople are the owner of the notification's agent and the
	// people who issued its live root mandates.
	MandatePeople Audience = "mandate_people"
)

// AddressedTo is the audience of kind k; false for a kind nobody
// classified, which Enqueue refuses, so a kind added to Kinds without an
// audience fails every test that enqueues it.
func AddressedTo(k Kind) (Audience, bool) {
	switch k {
	case ApprovalNeeded, Deferred, PactDecision:
		return Deciders, true
	case Question:
		return AskedPeople, true
	case AwaitingSession:
		return AgentOwner, true
	case TaskClosed, Message:
		return TaskPeople, true
	case Brief:
		return ProjectPeople, true
	case Expiring, Expired:
		return MandatePeople, true
	case PactUnread, PactStuck:
		return ThePerson, true
	}
	return "", false
}

// Waits reports whether a notification of kind k asks the people it is
// addressed to to act: it is in their "Waiting on you" while its cause is
// still open (waitingSQL).
func Waits(k Kind) bool { return waitingSQL(k) != "" }

// waitingSQL is the condition, over the notification n, under which a
// notification of kind k still waits for a person; "" for kinds that only
// inform. The causes are modules' rows, read where the inbox is listed
// (core/archtest's allowedReads says why).
func waitingSQL(k Kind) string {
	switch k {
	case ApprovalNeeded:
		return `EXISTS (SELECT 1 FROM tasks t WHERE t.id = n.task_id AND t.status = 'auth_required')`
	case Deferred, Question:
		return `EXISTS (SELECT 1 FROM tasks t WHERE t.id = n.task_id AND t.status = 'input_required')`
	case PactDecision:
		return `EXISTS (SELECT 1 FROM pact_decisions d WHERE d.id = n.decision_id AND d.answer IS NULL)`
	}
	return ""
}

// waitingCase is one SQL expression over n, true while n still waits: a
// CASE over every kind that waits.
func waitingCase() string {
	var b strings.Builder
	b.WriteString("CASE n.kind")
	for _, k := range Kinds() {
		if c := waitingSQL(k); c != "" {
			fmt.Fprintf(&b, " WHEN '%s' THEN %s", k, c)
		}
	}
	b.WriteString(" ELSE false END")
	return b.String()
}

// The owners of the agents a notification n names: its own agent and the
// agent that posted its task.
const (
	agentOwnerSQL  = `(SELECT a.owner FROM agents a WHERE a.id = n.agent_id)`
	posterOwnerSQL = `(SELECT a.owner FROM tasks t JOIN agents a ON a.id = t.created_by WHERE t.id = n.task_id)`
	deciderSQL     = `h.role IN ('owner', 'approver')`
)

// audienceSQL is the condition on the person h, of n's organization and
// enabled, under which n is addressed to h when n names no person.
func audienceSQL(a Audience) string {
	switch a {
	case ThePerson:
		return `h.role = 'owner'`
	case Deciders:
		return deciderSQL
	case AskedPeople:
		asked := `(x.id = ` + agentOwnerSQL + ` OR x.id = ` + posterOwnerSQL + `)`
		return deciderSQL + ` AND (` + strings.ReplaceAll(asked, "x.", "h.") + ` OR NOT EXISTS (SELECT 1 FROM humans x
			WHERE x.org_id = n.org_id AND x.disabled_at IS NULL AND x.role IN ('owner', 'approver') AND ` + asked + `))`
	case AgentOwner:
		return `(h.id = ` + agentOwnerSQL + ` OR (n.agent_id IS NULL AND ` + deciderSQL + `))`
	case TaskPeople:
		return `(h.id = ` + agentOwnerSQL + ` OR h.id = ` + posterOwnerSQL + `)`
	case ProjectPeople:
		return `(h.role = 'owner' OR h.id IN (SELECT a.owner FROM agent_projects ap JOIN agents a ON a.id = ap.agent_id
			WHERE ap.project_id = n.project_id))`
	case MandatePeople:
		return `(h.id = ` + agentOwnerSQL + ` OR h.id IN (SELECT m.issuer FROM mandates m WHERE m.holder = n.agent_id
			AND m.parent_id IS NULL AND m.issuer_kind = 'human' AND m.revoked_at IS NULL))`
	}
	return "false"
}

// addressSQL is the condition on h under which notification n of kind k
// reaches h: the named person, if any, else k's audience.
func addressSQL(k Kind) (string, error) {
	a, ok := AddressedTo(k)
	if !ok {
		return "", fmt.Errorf("outbox: kind %q is addressed to nobody: classify it in AddressedTo", k)
	}
	return `h.org_id = n.org_id AND
		CASE WHEN n.human_id IS NOT NULL THEN h.id = n.human_id ELSE ` + audienceSQL(a) + ` END`, nil
}
