package main

import "encoding/json"

// The refusal codes the runner acts on (docs/specs/behavior.md §17).

// isFatal: the code stops the runner for good.
func isFatal(code string) bool {
	switch code {
	case "system_halted", "agent_paused", "agent_unknown":
		return true
	}
	return false
}

// isMandate: the code stops the runner unless pact_whoami shows a live root
// mandate to carry on with.
func isMandate(code string) bool {
	switch code {
	case "mandate_revoked", "mandate_expired", "chain_broken":
		return true
	}
	return false
}

// isDrop: the code, refusing a claim, skips the task.
func isDrop(code string) bool {
	switch code {
	case "already_claimed", "wrong_agent", "invalid_request", "approval_pending", "not_found", "project_mismatch",
		"agent_busy", "limit_exceeded", "scope_exceeded", "project_frozen":
		return true
	}
	return false
}

// The answers of the tools the runner calls, as much as it reads of them
// (docs/mcp-tools.json).
type (
	whoamiOut struct {
		Agent struct {
			ID     string `json:"id"`
			Client string `json:"client"`
		} `json:"agent"`
		Projects []struct {
			ID         string `json:"id"`
			Production bool   `json:"production"`
		} `json:"projects"`
		Mandates []struct {
			ID       string  `json:"id"`
			ParentID *string `json:"parent_id"`
		} `json:"mandates"`
	}
	taskView struct {
		ID                 string          `json:"id"`
		ProjectID          string          `json:"project_id"`
		Title              string          `json:"title"`
		Body               string          `json:"body"`
		Action             string          `json:"action"`
		CreatedBy          string          `json:"created_by"`
		DelegateTo         *string         `json:"delegate_to"`
		DelegatedMandateID *string         `json:"delegated_mandate_id"`
		Status             string          `json:"status"`
		Result             json.RawMessage `json:"result"`
		// Answer is a person's answer, given when they resumed the task
		// after it was deferred to them.
		Answer *string `json:"answer"`
	}
	eventsOut struct {
		Tasks     []taskView    `json:"tasks"`
		Offered   []string      `json:"offered"`
		Messages  []messageView `json:"messages"`
		NextSince int64         `json:"next_since"`
		TimedOut  bool          `json:"timed_out"`
	}
	messageView struct {
		TaskID string `json:"task_id"`
		From   string `json:"from"`
		Body   string `json:"body"`
	}
	listOut struct {
		Tasks     []taskView `json:"tasks"`
		NextSince int64      `json:"next_since"`
		HasMore   bool       `json:"has_more"`
		Head      int64      `json:"head"`
	}
	claimOut struct {
		Budget map[string]float64 `json:"budget"`
	}
)
