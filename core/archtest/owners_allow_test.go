package archtest

// harnessWrites are the writes the test harness makes to tables it does
// not own, each with its reason. Only a harness home (harnessHomes) may
// write here: it is test code that no board binary links
// (binaries_test.go), seeding rows whose owner it cannot import.
func harnessWrites() []allowance {
	const seeds = "core and the modules other than modules/people cannot import it, so their tests seed agents " +
		"through kerneltest's World.Agent: the rows registration writes, and nothing it decides (modules/people's " +
		"tests prove registration itself)"
	return []allowance{
		{"core/kernel/kerneltest", "agents", writes, seeds},
		{"core/kernel/kerneltest", "agent_projects", writes, seeds},
		{"core/kernel/kerneltest", "agent_tokens", writes, seeds},
	}
}

// allowedReads are the reads of another package's table that stay, each
// with its reason. Writes are never allowed here: only a table's owner
// writes it.
func allowedReads() []allowance {
	const principals = "tables join the principals they name (an agent, a project, its organization) to scope " +
		"their rows to one organization (ID-003, ADMIN-003) in the same query; core/identity offers per-row lookups only"
	return []allowance{
		// The layers below core/identity, which it (and everything else) records and verifies through.
		{"core/ledger", "orgs", reads, "an entry's chain is its project's or agent's organization, resolved in the " +
			"appending statement; verification lists an organization's chains. core/ledger sits below core/identity"},
		{"core/ledger", "projects", reads, "as for orgs: the chain of an entry and the chains of an organization"},
		{"core/ledger", "agents", reads, "as for orgs: an entry without a project is chained by its agent's organization"},
		{"core/mandate", "humans", reads, "whole-chain verification is one recursive query (MANDATE-003) that checks " +
			"each issuer's and holder's organization (MANDATE-007); core/mandate sits below core/identity"},
		{"core/mandate", "agents", reads, "as for humans: the holders' organizations, in the verifying query"},
		{"core/mandate", "trusted_roots", reads, "a chain rooted in an imported credential is live only while its " +
			"trusted root is (CRED-005), checked on every use; core cannot call modules/credentials"},
		{"core/outbox", "projects", reads, "a notification carries its project's organization, taken in the " +
			"enqueueing statement"},
		{"core/outbox", "orgs", reads, "a detail the board wrote in every language is kept in its organization's " +
			"language (orgs.language), chosen in the enqueueing statement"},
		{"core/outbox", "humans", reads, "as for orgs: a notification for one person keeps the detail in that " +
			"person's language (humans.language) when they chose one, chosen in the same statement; and the inbox " +
			"rows it writes with the notification go to the people of its organization its kind is addressed to " +
			"(outbox.AddressedTo: their roles, whether they are enabled)"},
		{"core/outbox", "agents", reads, "as for humans: a notice about an agent, or a task an agent posted, is " +
			"addressed to the agent's owner in the enqueueing statement (NOTIFY-009)"},
		{"core/outbox", "tasks", reads, "as for agents: the agent that posted a notice's task; and a notice that " +
			"asks a person to act waits on them while its task still waits (its status), read where the inbox is " +
			"listed. core/outbox sits below modules/board and cannot call it"},
		{"core/outbox", "agent_projects", reads, "as for agents: a brief goes to the owners of the agents working " +
			"in its project"},
		{"core/outbox", "mandates", reads, "as for agents: an expiry warning goes to the people who issued the " +
			"agent's live root mandates"},
		{"core/outbox", "pact_decisions", reads, "a pact decision's notice waits on the people it is addressed " +
			"to while the decision is unanswered, read where the inbox is listed; core/outbox cannot call modules/pacts"},

		// core/identity reads the principals modules/people keeps: every call checks its agent, token and
		// projects there (Admit, LoadCaller), and everyone reads agents through it.
		{"core/identity", "agents", reads, "the principals as read by everyone: Admit checks a call's agent, its " +
			"status and its organization's switches in one statement; GetAgent and ListAgents are the reads every " +
			"package makes. modules/people decides and writes an agent's lifecycle"},
		{"core/identity", "agent_projects", reads, "as for agents: a caller's projects, read with the agent"},
		{"core/identity", "agent_tokens", reads, "as for agents: a call's bearer token is checked against its hash " +
			"(AuthenticateAgent, AgentForToken), in the call's first statement"},

		// Modules: joins with the principals their rows name.
		{"modules/board", "agents", reads, principals},
		{"modules/board", "projects", reads, principals},
		{"modules/board", "agent_projects", reads, "who may be delegated to: agents sharing a project with the " +
			"caller, joined in the listing query"},
		{"modules/board", "mandates", reads, "a task names its mandates; closing and listing read their state " +
			"(revoked, expiry) with the task"},
		{"modules/board", "notifications", reads, "the message cap tells the people once (BOARD-008): the board " +
			"looks for the notice it enqueued through core/outbox"},
		{"modules/notes", "projects", reads, principals},
		{"modules/board", "agent_presence", reads, "the overview counts the organization's agents seen in the last " +
			"hour, joined to their organization in one statement"},
		{"modules/credentials", "agents", reads, "an export names the holder's client, read with its key"},
		{"modules/credentials", "mandates", reads, "a revocation lasts as long as the link it revokes: its expiry " +
			"is the mandate's, read in the revoking statement"},
		{"modules/notify", "mandates", reads, "the expiry sweep scans every root mandate near its expiry across " +
			"organizations in one query (NOTIFY-005)"},
		{"modules/notify", "agent_tokens", reads, "as for mandates: the tokens near their expiry"},
		{"modules/notify", "agents", reads, "as for mandates: whose root or token expires"},
		{"modules/notify", "agent_projects", reads, "as for mandates: the project an expiry notice is filed under"},
		{"modules/notify", "orgs", reads, "the Slack webhook (orgs.slack_webhook_url) is a secret only notify seals and " +
			"opens (core/seal); it reads the sealed value where it delivers, shows its hint and reseals it, and writes " +
			"it through identity.SetOrgSecret. The organization's language (orgs.language) is read where it delivers " +
			"and in the expiry sweep's query, which writes each warning in it"},
		{"modules/notify", "humans", reads, "as for orgs: a notification for one person (notifications.human_id) is " +
			"told in their language (humans.language) when they chose one, read with the organization's where it " +
			"delivers; and it is never sent once that person is disabled (SEC-025), read where it delivers. A person's " +
			"email (docs/notifications.md, \"Email\") goes to their address (humans.email) in their language, read where " +
			"it delivers and where they see their choices"},

		// The fault harness checks, apart from every board, what the boards it attacked committed.
		{"cmd/pact-faults", "tasks", reads, "the fault harness (docs/reliability.md) compares the tasks its " +
			"clients were answered for with the rows the boards committed (REL-010, REL-011); going through a board " +
			"would ask the process under test to vouch for itself"},
		{"cmd/pact-faults", "entries", reads, "as for tasks: no task may exist without the log entry its post " +
			"commits with (REL-011)"},
		{"cmd/pact-faults", "orgs", reads, "scenario 6 (docs/reliability.md) holds the organization's row FOR UPDATE " +
			"for 4 s, so that every call's log entry, whose foreign key locks that row, waits: a stuck statement the " +
			"boards must cancel by their deadline (REL-021); it changes nothing"},
	}
}
