package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// runSession is what one run's command is given to work on the board
// (docs/runner.md, "The session on the board"): a directory of its own,
// <PACT_RUNNER_LOG_DIR>/run-<task id> (mode 700 in the directory the
// runner keeps its own, SEC-019; removed when the run ends, and at start
// whatever a killed runner left there), holding the MCP config that names
// the agent's URL with the run's credential (mode 600), and the settings
// that install the push guard. The runner's own token never enters it.
type runSession struct {
	dir       string
	mcpConfig string // <dir>/mcp.json
	settings  string // <dir>/settings.json
	tools     []string
	mandate   string
}

// runCredentialOut is pact_run_credential's answer.
type runCredentialOut struct {
	Token     string   `json:"token"`
	MandateID string   `json:"mandate_id"`
	Tools     []string `json:"tools"`
	Withheld  []string `json:"withheld"`
}

// mcpServerName is the board's name in a run's MCP config: Claude Code
// names its tools mcp__<server>__<tool>.
const mcpServerName = "pact"

// openSession asks the board for task t's run credential under mandate m,
// living as long as the run may, and writes the run's directory.
func (r *runner) openSession(ctx context.Context, t taskView, m string) (*runSession, error) {
	var cred runCredentialOut
	err := r.board.call(ctx, "pact_run_credential", map[string]any{"task_id": t.ID, "mandate_id": m, "tools": r.cfg.Tools,
		"seconds": math.Ceil(r.cfg.RunTimeout.Seconds())}, &cred)
	if err != nil {
		return nil, fmt.Errorf("the run's credential: %w", err)
	}
	if err := secureLogDir(r.cfg.LogDir); err != nil {
		return nil, err
	}
	dir := filepath.Join(r.cfg.LogDir, "run-"+t.ID)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	s := &runSession{dir: dir, mcpConfig: filepath.Join(dir, "mcp.json"), settings: filepath.Join(dir, "settings.json"),
		tools: cred.Tools, mandate: cred.MandateID}
	config := map[string]any{"mcpServers": map[string]any{mcpServerName: map[string]any{
		"type": "http", "url": r.cfg.URL + "/mcp/a/" + r.cfg.AgentID,
		"headers": map[string]string{"Authorization": "Bearer " + cred.Token}}}}
	self, err := os.Executable()
	if err != nil {
		self = "pact-runner"
	}
	guard := shellQuote(self) + " guard --protected " + shellQuote(strings.Join(r.cfg.Protected, ","))
	if r.cfg.AllowForce {
		guard += " --allow-force"
	}
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "command": guard}}}}}}
	for path, v := range map[string]any{s.mcpConfig: config, s.settings: settings} {
		if err := writeJSON(path, v); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Close removes the run's directory, its credential with it.
func (s *runSession) Close() { _ = os.RemoveAll(s.dir) }

// removeLeftRuns removes the run directories a runner killed mid-run left
// in dir (their credentials are dead already: the claim went stale or was
// taken, or the run timed out).
func removeLeftRuns(dir string) error {
	left, err := filepath.Glob(filepath.Join(dir, "run-*"))
	if err != nil {
		return err
	}
	for _, d := range left {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}

// writeJSON writes v to a new file at path, mode 600.
func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(raw, '\n')); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// claudeArgs is the default command: Claude Code in print mode (Claude
// Code's CLI reference, docs/runner.md), reading the task on stdin, with
// only the run's MCP config, its tools pre-approved, its turns and money
// capped, the role's instructions, JSON output, and for a report.brief
// task the brief's schema.
func (r *runner) claudeArgs(s *runSession, t taskView, turns int, usd float64) []string {
	allowed := make([]string, len(s.tools))
	for i, tool := range s.tools {
		allowed[i] = "mcp__" + mcpServerName + "__" + tool
	}
	args := []string{"-p", "--mcp-config", s.mcpConfig, "--strict-mcp-config", "--allowedTools", strings.Join(allowed, ","),
		"--max-turns", strconv.Itoa(turns), "--settings", s.settings, "--output-format", "json"}
	if r.cfg.RoleFile != "" {
		args = append(args, "--append-system-prompt-file", r.cfg.RoleFile)
	}
	if usd > 0 {
		args = append(args, "--max-budget-usd", strconv.FormatFloat(usd, 'f', -1, 64))
	}
	if t.Action == "report.brief" {
		args = append(args, "--json-schema", briefSchema)
	}
	return args
}

// briefSchema is the structured report a report.brief session returns,
// the shape the board's brief card reads (modules/notify: greeting, then
// sections of items, each item naming the task it is about).
const briefSchema = `{"type":"object","additionalProperties":false,"required":["greeting","sections"],"properties":{` +
	`"greeting":{"type":"string","description":"One line to open the brief."},` +
	`"sections":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["title","items"],"properties":{` +
	`"title":{"type":"string"},"items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["text"],"properties":{` +
	`"text":{"type":"string"},"task_id":{"type":"string","description":"The board task the item is about, when there is one."}}}}}}}}}`

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
