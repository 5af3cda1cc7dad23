package main

import (
	"encoding/json"
	"strings"
)

// claudeResult is the one JSON object Claude Code prints in print mode
// with --output-format json (docs/runner.md, "Output"): the answer's text,
// the turns taken, what the run cost, whether it ended in error, and with
// --json-schema the structured output.
type claudeResult struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	NumTurns         int             `json:"num_turns"`
	TotalCostUSD     float64         `json:"total_cost_usd"`
	StructuredOutput json.RawMessage `json:"structured_output"`
}

// parseClaude reads stdout as Claude Code's JSON result; nil when it is
// anything else (a custom command's text), which is then reported as
// before.
func parseClaude(stdout string) *claudeResult {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return nil
	}
	var r claudeResult
	if json.Unmarshal([]byte(s), &r) != nil || r.Type != "result" {
		return nil
	}
	return &r
}

// report returns the structured report a brief's session gave, when it is
// an object with sections; nil otherwise.
func (c *claudeResult) report() json.RawMessage {
	if c == nil || len(c.StructuredOutput) == 0 {
		return nil
	}
	var v struct {
		Sections []json.RawMessage `json:"sections"`
	}
	if json.Unmarshal(c.StructuredOutput, &v) != nil || len(v.Sections) == 0 {
		return nil
	}
	return c.StructuredOutput
}

// briefResult is a report.brief task's result: the text and its Handoff
// as the board reads a closing object (a "handoff" key), and the
// structured report the brief card shows (modules/board: "report").
func briefResult(text string, report json.RawMessage) map[string]any {
	handoff := text
	if loc := handoffHeading.FindStringIndex(text); loc != nil {
		handoff = text[loc[0]:]
	}
	return map[string]any{"text": text, "handoff": handoff, "report": report}
}
