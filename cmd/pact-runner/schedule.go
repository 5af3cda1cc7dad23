package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

// scheduleEntry is one entry of PACT_RUNNER_SCHEDULE (docs/runner.md,
// "Schedules"; the secretary role's setting, docs/specs/behavior.md §3.2).
type scheduleEntry struct {
	At      string `json:"at"`      // local time, HH:MM
	Title   string `json:"title"`   // the task's title, its placeholders filled
	Body    string `json:"body"`    // the task's body, its placeholders filled
	Action  string `json:"action"`  // the task's action ("": task.work)
	Project string `json:"project"` // the project ("": the runner's first that is not production)

	hour, minute int
}

// parseSchedule reads PACT_RUNNER_SCHEDULE: a JSON list of entries, each
// with "at" (HH:MM) and "title"; "" is no schedule.
func parseSchedule(s string) ([]scheduleEntry, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("PACT_RUNNER_SCHEDULE: "+format+
			` (a JSON list like [{"at":"07:30","title":"Daily brief","body":"…","action":"report.brief"}])`, a...)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var out []scheduleEntry
	if err := dec.Decode(&out); err != nil {
		return nil, bad("%v", err)
	}
	seen := map[string]bool{}
	for i := range out {
		e := &out[i]
		h, m, ok := strings.Cut(e.At, ":")
		var err1, err2 error
		e.hour, err1 = strconv.Atoi(h)
		e.minute, err2 = strconv.Atoi(m)
		if !ok || len(m) != 2 || err1 != nil || err2 != nil || e.hour < 0 || e.hour > 23 || e.minute < 0 || e.minute > 59 {
			return nil, bad("entry %d: \"at\" must be a local time HH:MM, not %q", i+1, e.At)
		}
		if strings.TrimSpace(e.Title) == "" {
			return nil, bad("entry %d has no title", i+1)
		}
		if seen[e.Title] {
			return nil, bad("two entries are titled %q", e.Title)
		}
		seen[e.Title] = true
	}
	return out, nil
}

// scheduled is what the runner knows of an entry's last post: its local
// day and the head it recorded, the {since} of the next one.
type scheduled struct {
	day  string
	head int64
}

// marker ends the body of a task a schedule posted: the entry's title, the
// day and the head, so that a restarted runner knows what it posted.
var marker = regexp.MustCompile(`<!-- pact-runner schedule ("(?:[^"\\]|\\.)*") day=(\d{4}-\d{2}-\d{2}) head=(\d+) -->`)

func markerText(title, day string, head int64) string {
	return fmt.Sprintf("<!-- pact-runner schedule %s day=%s head=%d -->", strconv.Quote(title), day, head)
}

// at is when e is due on t's local day.
func (e scheduleEntry) at(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, e.hour, e.minute, 0, 0, t.Location())
}

// schedules posts and runs each entry that is due now and was not posted
// today: once per local day, at or after its time.
func (r *runner) schedules(ctx context.Context) error {
	for _, e := range r.cfg.Schedule {
		if ctx.Err() != nil || (r.cfg.Once && r.ranAny) {
			return nil
		}
		now := r.cfg.now()
		if now.Before(e.at(now)) {
			continue
		}
		if err := r.scheduleOne(ctx, e, now); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) scheduleOne(ctx context.Context, e scheduleEntry, now time.Time) error {
	day := now.Format(time.DateOnly)
	project := cmpOr(e.Project, r.project)
	log := r.log.With("schedule", e.Title, "project", project)
	if skip, known := r.skip[project]; skip || !known {
		log.Warn("schedule: not a project of this runner, or production; not posting")
		return nil
	}
	last, known := r.sched[e.Title]
	if !known {
		var err error
		if last, err = r.lastPosted(ctx, e.Title, project); err != nil {
			return r.scheduleFailed(ctx, log, err)
		}
		r.sched[e.Title] = last
	}
	if last.day >= day {
		return nil
	}
	var head listOut
	if err := r.board.call(ctx, "pact_list", map[string]any{"mandate_id": r.root, "filter": "mine", "project_id": project, "limit": 1}, &head); err != nil {
		return r.scheduleFailed(ctx, log, err)
	}
	since := head.Head
	if last.day != "" {
		since = last.head
	}
	fill := strings.NewReplacer("{date}", day, "{project}", project, "{since}", strconv.FormatInt(since, 10))
	t := taskView{ProjectID: project, Title: fill.Replace(e.Title), Body: fill.Replace(e.Body) + "\n\n" + markerText(e.Title, day, head.Head),
		Action: e.Action, CreatedBy: r.cfg.AgentID}
	args := map[string]any{"mandate_id": r.root, "project_id": project, "title": t.Title, "body": t.Body}
	if e.Action != "" {
		args["action"] = e.Action
	}
	var posted struct {
		TaskID string `json:"task_id"`
		Status string `json:"status"`
	}
	if err := r.board.call(ctx, "pact_post", args, &posted); err != nil {
		return r.scheduleFailed(ctx, log, err)
	}
	r.sched[e.Title] = scheduled{day: day, head: head.Head}
	t.ID = posted.TaskID
	log = log.With("task", t.ID)
	log.Info("schedule: posted its task; claiming it", "since", since, "status", posted.Status)
	return r.claim(ctx, log, t, r.root)
}

// scheduleFailed handles a failed call of a schedule: a fatal or mandate
// refusal as anywhere; anything else is logged and the entry is tried
// again on the next pass.
func (r *runner) scheduleFailed(ctx context.Context, log hclog.Logger, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	if unauthorized(err) {
		return stopped{err}
	}
	if err := r.refused(ctx, err, r.root); err != nil {
		return err
	}
	log.Warn("schedule: the call failed; trying again on the next pass", "error", err)
	return nil
}

// lastPosted reads the board for the last task this runner posted for the
// entry titled title (its marker), among its open and closed tasks of the
// project.
func (r *runner) lastPosted(ctx context.Context, title, project string) (scheduled, error) {
	var last scheduled
	for _, filter := range []string{"mine", "done"} {
		var since int64
		for {
			var page listOut
			args := map[string]any{"mandate_id": r.root, "filter": filter, "project_id": project, "limit": 200, "since": since}
			if err := r.board.call(ctx, "pact_list", args, &page); err != nil {
				return scheduled{}, err
			}
			for _, t := range page.Tasks {
				if t.CreatedBy != r.cfg.AgentID {
					continue
				}
				for _, m := range marker.FindAllStringSubmatch(t.Body, -1) {
					if q, err := strconv.Unquote(m[1]); err != nil || q != title || m[2] < last.day {
						continue
					}
					head, _ := strconv.ParseInt(m[3], 10, 64)
					last = scheduled{day: m[2], head: head}
				}
			}
			if !page.HasMore || page.NextSince <= since {
				break
			}
			since = page.NextSince
		}
	}
	return last, nil
}

// untilDue is how long until the next entry is due (at most max).
func (r *runner) untilDue(now time.Time, max time.Duration) time.Duration {
	d := max
	for _, e := range r.cfg.Schedule {
		at := e.at(now)
		if !now.Before(at) {
			at = e.at(now.AddDate(0, 0, 1))
		}
		d = min(d, at.Sub(now)+time.Second)
	}
	return d
}
