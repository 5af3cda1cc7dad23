package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

// subtaskRequest is one line of the subtasks file a command writes
// (PACT_SUBTASKS_FILE, docs/runner.md "Sub-agents").
type subtaskRequest struct {
	Title  string `json:"title"`
	Body   string `json:"body"`
	Worker string `json:"worker"` // one of PACT_RUNNER_WORKERS; "": the first
}

// subtaskPoll is how often the runner reads its subtasks while it waits.
const subtaskPoll = 2 * time.Second

// subtasksFile is where the command of task id asks for subtasks.
func (r *runner) subtasksFile(id string) string {
	return filepath.Join(r.cfg.LogDir, id+".subtasks")
}

// readSubtasks reads the subtasks file: one JSON object a line, blank
// lines skipped; no file is no subtask. A symbolic link, or a file that is
// not this user's own regular file, is refused (readOwnFile, SEC-019).
func readSubtasks(path string) ([]subtaskRequest, error) {
	raw, err := readOwnFile(path)
	if err != nil || raw == nil {
		return nil, err
	}
	var out []subtaskRequest
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var s subtaskRequest
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if strings.TrimSpace(s.Title) == "" {
			return nil, fmt.Errorf("line %d: no title", n)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// workers is PACT_RUNNER_WORKERS for project: its comma-separated agent
// ids with {project} filled.
func (r *runner) workers(project string) []string {
	var out []string
	for _, w := range strings.Split(r.cfg.Workers, ",") {
		if w = strings.TrimSpace(strings.ReplaceAll(w, "{project}", project)); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// subtasks posts the subtasks the command of task t asked for, each
// delegated to a worker with an equal share of the turns the run left
// (turns - used) and one run, then waits for them (at most
// PACT_RUNNER_MAX_WAIT_HOURS, while the caller's heartbeat goes on). It
// returns their section of the report, and whether each one completed
// (docs/specs/behavior.md §17: sub-agents).
func (r *runner) subtasks(ctx context.Context, log hclog.Logger, t taskView, turns, used int) (string, bool) {
	reqs, err := readSubtasks(r.subtasksFile(t.ID))
	if err != nil {
		return "## Subtasks\n\nThe subtasks file could not be read, so none was posted: " + err.Error() + "\n", false
	}
	if len(reqs) == 0 {
		return "", true
	}
	var b strings.Builder
	b.WriteString("## Subtasks\n")
	workers := r.workers(t.ProjectID)
	share := (turns - used) / len(reqs)
	ok := true
	var ids []string
	titles := map[string]string{}
	for _, s := range reqs {
		worker := cmpOr(s.Worker, firstOr(workers, ""))
		why := ""
		switch {
		case len(workers) == 0:
			why = "no worker: PACT_RUNNER_WORKERS is not set"
		case !slices.Contains(workers, worker):
			why = fmt.Sprintf("worker %s is not one of PACT_RUNNER_WORKERS (%s)", worker, strings.Join(workers, ", "))
		case share < 1:
			why = fmt.Sprintf("no turns left to share (%d of %d used)", used, turns)
		}
		var posted struct {
			TaskID string `json:"task_id"`
		}
		if why == "" {
			err := r.board.call(ctx, "pact_post", map[string]any{"mandate_id": r.root, "project_id": t.ProjectID, "title": s.Title,
				"body": s.Body, "delegate_to": worker, "parent_task_id": t.ID,
				"child_limits": map[string]float64{"runs": 1, "turns": float64(share)}}, &posted)
			if err != nil {
				why = "the post failed: " + err.Error()
			}
		}
		if why != "" {
			ok = false
			fmt.Fprintf(&b, "\n### %s: not posted\n\n%s\n", s.Title, why)
			log.Warn("subtask not posted", "title", s.Title, "why", why)
			continue
		}
		log.Info("subtask posted", "subtask", posted.TaskID, "worker", worker, "turns", share)
		ids = append(ids, posted.TaskID)
		titles[posted.TaskID] = fmt.Sprintf("%s (%s, task %s)", s.Title, worker, posted.TaskID)
	}
	done := r.waitSubtasks(ctx, log, t.ID, ids)
	for _, id := range ids {
		st, found := done[id]
		switch {
		case !found:
			ok = false
			fmt.Fprintf(&b, "\n### %s: not finished\n\nIt was not done within PACT_RUNNER_MAX_WAIT_HOURS (%s) or the wait was cut short.\n",
				titles[id], r.cfg.MaxWait)
		default:
			ok = ok && st.Status == "completed"
			fmt.Fprintf(&b, "\n### %s: %s\n\n%s\n", titles[id], st.Status, resultText(st.Result))
		}
	}
	return b.String(), ok
}

// waitSubtasks reads parent's subtasks until those of ids are closed, the
// wait runs out, or ctx ends; it returns the closed ones.
func (r *runner) waitSubtasks(ctx context.Context, log hclog.Logger, parent string, ids []string) map[string]taskView {
	done := map[string]taskView{}
	deadline := r.cfg.now().Add(r.cfg.MaxWait)
	for len(ids) > 0 && ctx.Err() == nil {
		var page listOut
		err := r.board.call(ctx, "pact_list", map[string]any{"mandate_id": r.root, "filter": "all", "parent_task_id": parent, "limit": 200}, &page)
		if code := codeOf(err); err != nil && (isFatal(code) || isMandate(code) || unauthorized(err)) {
			log.Warn("reading the subtasks was refused; not waiting for them", "error", err)
			break
		} else if err != nil {
			log.Warn("reading the subtasks failed; trying again", "error", err)
		}
		for _, s := range page.Tasks {
			if slices.Contains(ids, s.ID) && terminal(s.Status) {
				done[s.ID] = s
			}
		}
		if len(done) == len(ids) || !r.cfg.now().Before(deadline) {
			break
		}
		sleep(ctx, subtaskPoll)
	}
	return done
}

func terminal(status string) bool {
	switch status {
	case "completed", "failed", "canceled", "rejected":
		return true
	}
	return false
}

// resultText is a task's result as text: a JSON string unquoted, anything
// else as JSON.
func resultText(raw json.RawMessage) string {
	// null first: it decodes into a string without an error, as "".
	if len(raw) == 0 || string(raw) == "null" {
		return "(no result)"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}
