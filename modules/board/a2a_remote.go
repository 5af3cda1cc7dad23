package board

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/sdk/errs"
)

// The board drives its remote A2A agents (docs/a2a.md, "Remote agents"),
// as pact-runner drives a command: what is delegated to an agent of client
// a2a-remote, the board claims as that agent, sends to the remote agent,
// follows and reports, every step a tool call of the agent's through the
// kernel's pipeline, so its mandate, budgets, lease, claim_lost and the
// kill switch apply as to any agent.

// remoteDriver is one board process's driving of remote agents.
type remoteDriver struct {
	box  *seal.Box
	http *http.Client
	// follower names this process on the tasks it follows.
	follower string
	// lease is how long a follower's hold on a task lasts unrenewed; beat
	// how often it tells the board the remote still works (a heartbeat,
	// well within the claim's lease); giveUp how long an unreachable remote
	// is retried, first after backoff, then twice as long each time, before
	// the task fails; poll how often a remote that does not stream is read;
	// call how long one call to the remote may take.
	lease, beat, giveUp, backoff, poll, call time.Duration

	mu      sync.Mutex
	running map[string]bool
	wg      sync.WaitGroup
}

// newRemoteDriver drives remote agents through hc, under the claim lease
// stale (PACT_STALE_MINUTES): a heartbeat every third of it, an
// unreachable remote retried for half of it.
func newRemoteDriver(box *seal.Box, hc *http.Client, stale time.Duration) *remoteDriver {
	return &remoteDriver{box: box, http: hc, follower: uuid.NewString(), lease: time.Minute,
		beat: min(5*time.Minute, stale/3), giveUp: stale / 2, backoff: time.Second, poll: 2 * time.Second,
		call: 30 * time.Second, running: map[string]bool{}}
}

// window is how long the driver waits on a remote task before it renews
// its lease and, when due, heartbeats.
func (d *remoteDriver) window() time.Duration { return min(d.beat/2, d.lease/3) }

// remoteWorker looks for work of remote agents at every task event (a
// delegation, a person's resume) and every few seconds, and follows each
// task it gets in a goroutine of its own.
func (m *Module) remoteWorker(ctx context.Context) error {
	sub := m.events.Subscribe(func(ev events.Event) bool { return ev.Kind == events.KindTask })
	defer sub.Close()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	defer m.remote.wg.Wait()
	for {
		work, err := m.svc.st.remoteWork(ctx, m.db, 16)
		if err != nil && ctx.Err() == nil {
			m.logger.Warn("remote A2A agents: read their work", "error", err)
		}
		for _, w := range work {
			if m.remote.start(w.TaskID) {
				m.remote.wg.Add(1)
				go func() {
					defer m.remote.wg.Done()
					defer m.remote.done(w.TaskID)
					if err := m.followRemote(ctx, w); err != nil && ctx.Err() == nil {
						m.logger.Warn("remote A2A agent: follow a task", "agent", w.AgentID, "task", w.TaskID, "error", err)
					}
				}()
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-sub.C():
		case <-tick.C:
		}
	}
}

func (d *remoteDriver) start(task string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running[task] {
		return false
	}
	d.running[task] = true
	return true
}

func (d *remoteDriver) done(task string) {
	d.mu.Lock()
	delete(d.running, task)
	d.mu.Unlock()
}

// remoteRun is one following of one task.
type remoteRun struct {
	m       *Module
	w       remoteTask
	t       *Task
	mandate string
	// stop wakes at a stop that may concern the agent (StopsAgent).
	stop   *events.Subscription
	client *a2a.Client
	card   *a2a.AgentCard
	beaten time.Time
	// answered is the question (statusMark) whose answer the remote has;
	// refusedStream says the remote refused the last subscription.
	answered      string
	refusedStream bool
}

// followRemote takes the task's following, claims it when it is open,
// sends it (or a person's answer) and follows the remote task to a report.
func (m *Module) followRemote(ctx context.Context, w remoteTask) error {
	d := m.remote
	if ok, err := m.svc.st.leaseRemoteTask(ctx, m.db, w.TaskID, w.AgentID, d.follower, d.lease); err != nil || !ok {
		return err
	}
	release := true
	defer func() {
		if release {
			_ = m.svc.st.releaseRemoteTask(context.WithoutCancel(ctx), m.db, w.TaskID, d.follower)
		}
	}()
	t, err := m.svc.st.getTask(ctx, m.db, w.TaskID, false)
	if err != nil || t == nil || t.DelegatedMandateID == nil {
		return err
	}
	stop := m.events.Subscribe(func(ev events.Event) bool { return ev.StopsAgent(w.OrgID, w.AgentID) })
	defer stop.Close()
	run := &remoteRun{m: m, w: w, t: t, mandate: *t.DelegatedMandateID, stop: stop}
	if w.Answered != nil {
		run.answered = *w.Answered
	}
	switch {
	case t.Status == submitted:
		// As pact-runner claims (docs/runner.md): exclusively, a run
		// taken from the delegated mandate's budget.
		claim := map[string]any{"task_id": t.ID, "mandate_id": run.mandate, "exclusive": true, "reserve": map[string]float64{"runs": 1}}
		if err := run.tool(ctx, "pact_claim", claim); err != nil {
			if errs.IsRefusal(err) {
				// The agent may not take it now: the task rests for a
				// lease, so that its refusal is not logged every round.
				release = false
				_, _ = m.svc.st.renewRemoteLease(ctx, m.db, t.ID, d.follower, d.lease)
			}
			return err
		}
	case t.Status != working || t.Assignee == nil || *t.Assignee != w.AgentID:
		return nil // it changed since it was listed
	}
	if err := run.connect(ctx); err != nil {
		return run.end(ctx, "", err)
	}
	task, err := run.send(ctx)
	if err != nil {
		return run.end(ctx, deref(w.RemoteTaskID), err)
	}
	for {
		if out, done := outcomeOf(task, w.AgentID, run.answered); done {
			return run.report(ctx, task, out)
		}
		if err := run.wait(ctx, task); err != nil {
			return run.end(ctx, task.ID, err)
		}
		next, err := run.getTask(ctx, task.ID)
		if err != nil {
			return run.end(ctx, task.ID, err)
		}
		task = next
	}
}

// connect reads the remote agent's card and finds its JSON-RPC interface.
func (r *remoteRun) connect(ctx context.Context) error {
	ra, err := r.m.svc.st.remote(ctx, r.m.db, r.w.AgentID)
	if err != nil {
		return err
	}
	if ra == nil {
		return &remoteFailure{errors.New("no card is named for it")}
	}
	auth, err := openRemoteAuth(r.m.remote.box, ra)
	if err != nil {
		return &remoteFailure{err}
	}
	var card *a2a.AgentCard
	if err := r.retry(ctx, func(ctx context.Context) (err error) {
		card, err = a2a.FetchCard(ctx, r.m.remote.http, ra.CardURL, auth)
		return err
	}); err != nil {
		return err
	}
	url, ok := card.JSONRPCURL()
	if !ok {
		return &remoteFailure{errors.New("its card offers no JSON-RPC interface of A2A " + a2a.Version)}
	}
	r.card, r.client = card, &a2a.Client{URL: url, Authorization: auth, HTTP: r.m.remote.http}
	return nil
}

// send sends the task when it has not been, or the answer a person (or
// the poster) gave since the remote asked, and records the remote task it
// became; else it reads the remote task as it stands.
func (r *remoteRun) send(ctx context.Context) (*a2a.Task, error) {
	t, w := r.t, r.w
	var answer *string
	var answerID int64
	if w.RemoteTaskID != nil {
		if w.Question != nil && r.answered != *w.Question && t.Answer != nil {
			id, err := r.m.svc.st.remoteAnswer(ctx, r.m.db, t.ID, w.AgentID, *t.Answer)
			if err != nil {
				return nil, err
			}
			if id != 0 {
				answer, answerID = t.Answer, id
			}
		}
		if answer == nil {
			return r.getTask(ctx, *w.RemoteTaskID)
		}
	}
	rid, rctx := deref(w.RemoteTaskID), deref(w.RemoteContextID)
	msg := remoteMessage(t, rid, rctx, answer, answerID)
	var task *a2a.Task
	err := r.retry(ctx, func(ctx context.Context) error {
		resp, err := r.client.SendMessage(ctx, a2a.SendMessageRequest{Message: &msg,
			Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
		switch {
		case err != nil:
			return err
		case resp.Task != nil:
			task = resp.Task
		case resp.Message != nil: // an answer without a task: the work is done
			task = &a2a.Task{ID: orSay(rid, resp.Message.MessageID), ContextID: resp.Message.ContextID,
				Status:    a2a.TaskStatus{State: a2a.StateCompleted},
				Artifacts: []a2a.Artifact{{ArtifactID: "answer", Parts: resp.Message.Parts}}}
		default:
			return errors.New("the remote agent answered neither a task nor a message")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var answered *string
	if answer != nil {
		answered, r.answered = w.Question, *w.Question
		if err := r.m.svc.st.readRemote(ctx, r.m.db, t.ID, w.AgentID, answerID); err != nil {
			return nil, err
		}
	}
	return task, r.m.svc.st.sentRemote(ctx, r.m.db, t.ID, task.ID, task.ContextID, answered)
}

// getTask reads the remote task, retrying while the remote is unreachable.
func (r *remoteRun) getTask(ctx context.Context, id string) (*a2a.Task, error) {
	var task *a2a.Task
	// The retry runs first, in a statement of its own: Go leaves unsaid
	// whether task in "return task, r.retry(…)" is read before the call.
	err := r.retry(ctx, func(ctx context.Context) (err error) {
		task, err = r.client.GetTask(ctx, id)
		return err
	})
	return task, err
}

// report reports the outcome of the remote task; a question is recorded
// first, so that the remote showing it again after the answer is known.
func (r *remoteRun) report(ctx context.Context, task *a2a.Task, out remoteOutcome) error {
	if out.Status == inputRequired {
		if err := r.m.svc.st.askedRemote(ctx, r.m.db, r.t.ID, statusMark(task)); err != nil {
			return err
		}
	}
	return r.tool(ctx, "pact_report", map[string]any{"task_id": r.t.ID, "status": out.Status, "result": out.Result,
		"mandate_id": r.mandate})
}

// tool calls one of the board's tools as the remote agent.
func (r *remoteRun) tool(ctx context.Context, name string, args map[string]any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	_, err = r.m.tools.Call(ctx, r.w.AgentID, name, raw)
	return err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
