package board

import (
	"context"
	"time"

	"github.com/pactboard/pact/core/kernel"
)

// toolRunCredential issues per-run credentials.
const toolRunCredential = "pact_run_credential"

func (m *Module) addRunCredential(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: toolRunCredential, Effect: kernel.Adds, RoundTrips: 3, MandateArg: "mandate_id", ReadAhead: readTaskAhead, Title: "Credential for one run",
		Description: "For a Runner that has claimed a task and starts a session to do it: returns a token that acts as " +
			"you for this run only. The board lets it call only the tools you list (never pact_claim, pact_report, " +
			"pact_defer, pact_revoke or this tool: those stay with you), each under mandate_id, and refuses it once " +
			"the task is reported, deferred, released or claimed anew, and after seconds. Put it in the session's " +
			"MCP config for your /mcp/a/<agent-id> URL; never log it.",
	}, m.runCredential)
}

type runCredentialIn struct {
	TaskID    string   `json:"task_id" jsonschema:"The task you claimed and now run."`
	MandateID string   `json:"mandate_id" jsonschema:"The mandate the run acts under: the one you claimed the task with, or one below it."`
	Tools     []string `json:"tools" jsonschema:"The tools the run may call, e.g. [\"pact_whoami\", \"pact_list\", \"pact_note\", \"pact_post\"]."`
	Seconds   *float64 `json:"seconds,omitempty" jsonschema:"How long the credential lives at most, 1-86400: the run's timeout (default 1800)."`
}

type runCredentialOut struct {
	Token     string    `json:"token" jsonschema:"The run's bearer token (pact_run_…), shown once."`
	TaskID    string    `json:"task_id" jsonschema:"The task the run works on."`
	MandateID string    `json:"mandate_id" jsonschema:"The mandate every call of the run acts under."`
	Tools     []string  `json:"tools" jsonschema:"The tools the run may call."`
	Withheld  []string  `json:"withheld,omitempty" jsonschema:"Tools you asked for that a run never gets."`
	ExpiresAt time.Time `json:"expires_at" jsonschema:"When the credential dies at the latest."`
}

func (m *Module) runCredential(ctx context.Context, c *kernel.Call, a runCredentialIn) (runCredentialOut, error) {
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return runCredentialOut{}, err
	}
	ttl := 30 * time.Minute
	if a.Seconds != nil {
		ttl = time.Duration(*a.Seconds * float64(time.Second))
	}
	got, err := m.svc.IssueRunCredential(ctx, c.Tx, by, a.TaskID, a.Tools, m.tools.Names(), ttl)
	if err != nil {
		return runCredentialOut{}, err
	}
	return runCredentialOut(got), nil
}
