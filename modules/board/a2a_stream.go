package board

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/events"
)

// a2aRecheck is how often a follower reads its task with no wake (a missed
// notification costs at most that). How often an idle stream sends a
// keepalive is Options.StreamBeat.
const a2aRecheck = time.Minute

// a2aStream is SendStreamingMessage and SubscribeToTask: the task first,
// then its messages, artifacts and status changes as they happen, until it
// ends or waits for input (docs/a2a.md, "Streams"). No polling: the
// events hub wakes the stream at the commits that change the task.
func (m *Module) a2aStream(w http.ResponseWriter, r *http.Request, c *a2aCaller, req a2a.Request) {
	ctx := r.Context()
	var th threadOut
	var history *int32
	var err error
	if req.Method == a2a.MethodSendStreamingMessage {
		p, text, perr := a2aReadSend(req.Params)
		if err = perr; err == nil {
			if p.Configuration != nil {
				history = p.Configuration.HistoryLength
			}
			th, err = m.a2aSendOnce(ctx, c, p, text)
		}
	} else {
		var p a2a.TaskRequest
		if e := a2a.DecodeParams(req.Params, &p); e != nil {
			err = e
		} else if th, err = m.a2aRead(ctx, c, p.ID); err == nil && a2aStates[th.Task.Status].Terminal() {
			err = a2a.Errorf(a2a.CodeUnsupportedOperation, "task %s is %s: there is nothing to follow; read it with GetTask",
				th.Task.ID, th.Task.Status)
		}
	}
	if err != nil {
		writeA2A(w, http.StatusOK, a2a.Failure(req.ID, m.a2aError(c, req.Method, err)))
		return
	}
	s := a2a.NewStream(w, req.ID)
	t := a2aTask(th, c.agent, history)
	if s.Send(a2a.StreamResponse{Task: &t}) != nil || a2aStreamEnds(th) {
		return
	}
	prev := th
	err = m.a2aFollow(ctx, c, th, func(now threadOut) bool {
		for _, ev := range a2aUpdates(prev, now, c.agent) {
			if s.Send(ev) != nil {
				return false
			}
		}
		prev = now
		return !a2aStreamEnds(now)
	}, s.Comment)
	if err != nil && ctx.Err() == nil {
		_ = s.Fail(m.a2aError(c, req.Method, err))
	}
}

// a2aStreamEnds says whether a stream of the task ends: it is closed, or
// waits for input (as the official SDK's server ends its streams).
func a2aStreamEnds(th threadOut) bool {
	state := a2aStates[th.Task.Status]
	return state.Terminal() || state == a2a.StateInputRequired
}

// a2aFollow reads the task whenever a commit may have changed it, and hands
// each change to changed until it returns false. It subscribes before its
// first read, so no commit after from's read is missed (core/events: the
// waiter's contract). Each read is a pact_message call through the
// pipeline: a stop of the agent ends the stream with the gate's refusal.
// beat, when set, is called every Options.StreamBeat. It returns nil when changed
// ends it, the refusal or failure of a read, or ctx's error; when the
// board drains, it returns nil and the client follows again elsewhere.
func (m *Module) a2aFollow(ctx context.Context, c *a2aCaller, from threadOut, changed func(threadOut) bool, beat func(string) error) error {
	taskID := from.Task.ID
	sub := m.events.Subscribe(func(ev events.Event) bool {
		switch ev.Kind {
		case events.KindTaskState, events.KindMessage:
			return ev.TaskID == taskID
		case events.KindStop:
			return ev.StopsAgent(c.org, c.agent)
		}
		return false
	})
	defer sub.Close()
	beats, recheck := time.NewTicker(m.opts.StreamBeat), time.NewTicker(a2aRecheck)
	defer beats.Stop()
	defer recheck.Stop()
	last := from
	for {
		now, err := m.a2aRead(ctx, c, taskID)
		if err != nil {
			return err
		}
		if a2aChanged(last, now) {
			if !changed(now) {
				return nil
			}
			last = now
		}
		for waiting := true; waiting; {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-m.draining:
				return nil
			case <-sub.C():
				waiting = false
			case <-recheck.C:
				waiting = false
			case <-beats.C:
				if beat != nil {
					if err := beat("keepalive"); err != nil {
						return nil
					}
				}
			}
		}
	}
}

// a2aChanged reports whether the task or its thread changed between two
// reads.
func a2aChanged(a, b threadOut) bool {
	return a.Task.Seq != b.Task.Seq || a.Task.Status != b.Task.Status || len(a.Messages) != len(b.Messages) ||
		string(a.Task.Result) != string(b.Task.Result)
}

// a2aUpdates are the stream's events from one read of the task to the
// next: each new message of the other side as a status update carrying it,
// then a closed task's artifacts, then its new status.
func a2aUpdates(prev, now threadOut, me string) []a2a.StreamResponse {
	var out []a2a.StreamResponse
	v := now.Task
	seen := make([]int64, 0, len(prev.Messages))
	for _, msg := range prev.Messages {
		seen = append(seen, msg.ID)
	}
	var fresh []messageView
	for _, msg := range now.Messages {
		if !slices.Contains(seen, msg.ID) && msg.From != me {
			fresh = append(fresh, msg)
		}
	}
	for _, msg := range a2aMessages(fresh, v, me) {
		status := a2a.TaskStatus{State: a2aStates[v.Status], Message: &msg, Timestamp: msg.Metadata["at"].(string)}
		out = append(out, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: v.ID, ContextID: v.ProjectID, Status: status}})
	}
	if v.Status != prev.Task.Status || string(v.Result) != string(prev.Task.Result) {
		for _, art := range a2aArtifacts(v) {
			out = append(out, a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: v.ID, ContextID: v.ProjectID,
				Artifact: art, LastChunk: true}})
		}
	}
	if v.Status != prev.Task.Status || v.Deferred != prev.Task.Deferred {
		out = append(out, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: v.ID, ContextID: v.ProjectID,
			Status: a2aStatus(v)}})
	}
	return out
}
