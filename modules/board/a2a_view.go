package board

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pactboard/pact/core/a2a"
)

// How the A2A endpoint shows the board's tasks (docs/a2a.md, "Tasks"): the
// board's statuses are A2A's own, the project is the task's context, the
// result and its Handoff are artifacts, and the thread is the history.

// a2aStates maps each task status onto A2A's state of the same name.
var a2aStates = map[string]a2a.TaskState{
	submitted: a2a.StateSubmitted, working: a2a.StateWorking, inputRequired: a2a.StateInputRequired,
	authRequired: a2a.StateAuthRequired, completed: a2a.StateCompleted, failed: a2a.StateFailed,
	canceled: a2a.StateCanceled, rejected: a2a.StateRejected,
}

// a2aTask is a task read through pact_message (its thread) as A2A shows
// it to agent me; history keeps at most historyLength messages, the
// latest (nil: all).
func a2aTask(th threadOut, me string, historyLength *int32) a2a.Task {
	v := th.Task
	t := a2a.Task{ID: v.ID, ContextID: v.ProjectID, Status: a2aStatus(v),
		Metadata: map[string]any{"title": v.Title, "status": v.Status, "createdBy": v.CreatedBy, "seq": v.Seq}}
	if v.Assignee != nil {
		t.Metadata["assignee"] = *v.Assignee
	}
	t.Artifacts = a2aArtifacts(v)
	history := append([]a2a.Message{a2aPosted(v, me)}, a2aMessages(th.Messages, v, me)...)
	if historyLength != nil && int(*historyLength) < len(history) {
		history = history[len(history)-int(*historyLength):]
	}
	t.History = history
	return t
}

// a2aStatus is the task's state with what explains it: a question people
// (or its poster) must answer, or the approval it waits for.
func a2aStatus(v *taskView) a2a.TaskStatus {
	s := a2a.TaskStatus{State: a2aStates[v.Status], Timestamp: v.UpdatedAt}
	var say string
	switch {
	case v.Status == inputRequired && v.DeferReason != nil && *v.DeferReason != nil:
		say = **v.DeferReason
	case v.Status == authRequired:
		say = "The task waits for a person's approval before anyone may work on it."
	}
	if say != "" {
		s.Message = &a2a.Message{MessageID: v.ID + "/status/" + strconv.FormatInt(v.Seq, 10), ContextID: v.ProjectID,
			TaskID: v.ID, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(say)}}
	}
	return s
}

// a2aArtifacts are a closed task's result and, when it carries one, its
// Handoff (handoffOf).
func a2aArtifacts(v *taskView) []a2a.Artifact {
	if v.Result == nil || !terminal[v.Status] {
		return nil
	}
	out := []a2a.Artifact{{ArtifactID: "result", Name: "Result", Parts: []a2a.Part{resultPart(v.Result)}}}
	if text, value, ok := handoffOf(v.Result); ok {
		part := a2a.TextPart(text)
		if value != nil {
			part = a2a.DataPart(value)
		}
		out = append(out, a2a.Artifact{ArtifactID: "handoff", Name: "Handoff",
			Description: "What was done, where it is, what is left and what needs a person.", Parts: []a2a.Part{part}})
	}
	return out
}

// resultPart is a result as text when it is a string, as data otherwise.
func resultPart(r json.RawMessage) a2a.Part {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return a2a.TextPart(s)
	}
	return a2a.DataPart(r)
}

// a2aPosted is the task as its poster asked for it: the first message of
// its history.
func a2aPosted(v *taskView, me string) a2a.Message {
	text := v.Title
	switch {
	case strings.HasPrefix(v.Body, v.Title): // posted over A2A: the title is the body's first line
		text = v.Body
	case v.Body != "":
		text += "\n\n" + v.Body
	}
	return a2a.Message{MessageID: v.ID + "/posted", ContextID: v.ProjectID, TaskID: v.ID, Role: a2aRole(v.CreatedBy, me),
		Parts: []a2a.Part{a2a.TextPart(text)}, Metadata: map[string]any{"from": v.CreatedBy}}
}

// a2aMessages are the task's thread: the agent's own messages are the
// user's, everyone else's (other agents, people) the agent's side.
func a2aMessages(msgs []messageView, v *taskView, me string) []a2a.Message {
	out := make([]a2a.Message, 0, len(msgs))
	for _, msg := range msgs {
		out = append(out, a2a.Message{MessageID: fmt.Sprintf("%s/m%d", v.ID, msg.ID), ContextID: v.ProjectID, TaskID: v.ID,
			Role: a2aRole(msg.From, me), Parts: []a2a.Part{a2a.TextPart(msg.Body)},
			Metadata: map[string]any{"from": msg.From, "to": msg.To, "at": msg.At}})
	}
	return out
}

func a2aRole(from, me string) a2a.Role {
	if from == me {
		return a2a.RoleUser
	}
	return a2a.RoleAgent
}
