package board

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pactboard/pact/core/a2a"
)

// blockFor bounds a blocking SendMessage: as long as pact_wait holds a
// call (docs/a2a.md, "Blocking").
const blockFor = 50 * time.Second

// maxA2ATitle is how much of a message's first line becomes the task's
// title (a title holds 300 characters).
const maxA2ATitle = 200

// a2aMetadataKeys are the keys of SendMessage's metadata the board reads;
// any other is refused, so a misspelt one never passes silently.
var a2aMetadataKeys = []string{"action", "delegateTo"}

// a2aSend is SendMessage: a message without taskId posts a task, one with
// taskId is a message on that task, or the answer to the question it asks. Unless the configuration returns at
// once, it answers when the task ends or waits for someone, or after
// blockFor with the task as it stands.
func (m *Module) a2aSend(ctx context.Context, c *a2aCaller, params json.RawMessage) (a2a.SendMessageResponse, error) {
	p, text, err := a2aReadSend(params)
	if err != nil {
		return a2a.SendMessageResponse{}, err
	}
	th, err := m.a2aSendOnce(ctx, c, p, text)
	if err != nil {
		return a2a.SendMessageResponse{}, err
	}
	var history *int32
	if p.Configuration != nil {
		history = p.Configuration.HistoryLength
	}
	if p.Configuration == nil || !p.Configuration.ReturnImmediately {
		bctx, cancel := context.WithTimeout(ctx, blockFor)
		defer cancel()
		err = m.a2aFollow(bctx, c, th, func(now threadOut) bool {
			th = now
			state := a2aStates[now.Task.Status]
			return !state.Terminal() && !state.Interrupted()
		}, nil)
		if err != nil && bctx.Err() == nil {
			return a2a.SendMessageResponse{}, err
		}
	}
	t := a2aTask(th, c.agent, history)
	return a2a.SendMessageResponse{Task: &t}, nil
}

// a2aSendOnce posts the task or sends the message, and reads the task. A
// push config in the configuration is checked before anything is sent,
// and added for the task once it is.
func (m *Module) a2aSendOnce(ctx context.Context, c *a2aCaller, p a2a.SendMessageRequest, text string) (threadOut, error) {
	msg := p.Message
	push, err := m.a2aSendPush(ctx, p)
	if err != nil {
		return threadOut{}, err
	}
	if msg.TaskID == "" {
		args := map[string]any{"title": a2aTitle(text), "body": text, "mandate_id": c.root}
		project, err := a2aProject(c, msg.ContextID)
		if err != nil {
			return threadOut{}, err
		}
		args["project_id"] = project
		for _, k := range a2aMetadataKeys {
			if v, ok := p.Metadata[k]; ok {
				args[map[string]string{"action": "action", "delegateTo": "delegate_to"}[k]] = v
			}
		}
		var posted postOut
		if err := m.a2aTool(ctx, c, "pact_post", args, &posted); err != nil {
			return threadOut{}, err
		}
		if push != nil {
			if _, err := m.push.add(ctx, c, posted.TaskID, *push); err != nil {
				return threadOut{}, err
			}
		}
		return m.a2aRead(ctx, c, posted.TaskID)
	}
	th, err := m.a2aRead(ctx, c, msg.TaskID)
	if err != nil {
		return threadOut{}, err
	}
	if msg.ContextID != "" && msg.ContextID != th.Task.ProjectID {
		return threadOut{}, a2a.Errorf(a2a.CodeInvalidParams, "task %s is in context %s, not %s",
			th.Task.ID, th.Task.ProjectID, msg.ContextID).WithField("message.contextId", "must be the task's context, or empty")
	}
	if a2aStates[th.Task.Status].Terminal() {
		return threadOut{}, a2a.Errorf(a2a.CodeUnsupportedOperation,
			"task %s is %s and takes no more messages; send a message without taskId to start another", th.Task.ID, th.Task.Status)
	}
	if push != nil {
		if err := m.push.room(ctx, m.db, c.agent, th.Task.ID); err != nil {
			return threadOut{}, err
		}
	}
	// On a task waiting for input the message is the reply (pact_reply:
	// its poster's, to a question); on any other, a message to its other
	// side (pact_message).
	tool, args := "pact_message", map[string]any{"task_id": th.Task.ID, "body": text, "mandate_id": c.root}
	if th.Task.Status == inputRequired {
		tool, args = "pact_reply", map[string]any{"task_id": th.Task.ID, "reply": text, "mandate_id": c.root}
	}
	if err := m.a2aTool(ctx, c, tool, args, nil); err != nil {
		return threadOut{}, err
	}
	if push != nil {
		if _, err := m.push.add(ctx, c, th.Task.ID, *push); err != nil {
			return threadOut{}, err
		}
	}
	return m.a2aRead(ctx, c, th.Task.ID)
}

// a2aReadSend reads and checks SendMessage's params, and the message's
// text: its text parts, its data parts as JSON blocks and its links, in
// order. Files sent inline are refused: the board keeps text.
func a2aReadSend(params json.RawMessage) (a2a.SendMessageRequest, string, error) {
	var p a2a.SendMessageRequest
	if e := a2a.DecodeParams(params, &p); e != nil {
		return p, "", e
	}
	msg := p.Message
	switch {
	case msg == nil:
		return p, "", a2a.Errorf(a2a.CodeInvalidParams, "the message is missing").WithField("message", "required")
	case msg.Role != a2a.RoleUser:
		return p, "", a2a.Errorf(a2a.CodeInvalidParams, "a message to the board is the user's: its role is %s, not %q",
			a2a.RoleUser, msg.Role).WithField("message.role", "must be "+string(a2a.RoleUser))
	case msg.MessageID == "":
		return p, "", a2a.Errorf(a2a.CodeInvalidParams, "the message has no messageId").WithField("message.messageId", "required")
	}
	for k := range p.Metadata {
		if !slices.Contains(a2aMetadataKeys, k) {
			return p, "", a2a.Errorf(a2a.CodeInvalidParams, "the board reads only %s from metadata, not %q",
				strings.Join(a2aMetadataKeys, " and "), k).WithField("metadata."+k, "not read by the board")
		}
		if _, ok := p.Metadata[k].(string); !ok {
			return p, "", a2a.Errorf(a2a.CodeInvalidParams, "metadata.%s must be a string", k).WithField("metadata."+k, "a string")
		}
	}
	var texts []string
	for i, part := range msg.Parts {
		switch {
		case part.Text != nil:
			texts = append(texts, *part.Text)
		case part.Data != nil:
			texts = append(texts, "```json\n"+string(part.Data)+"\n```")
		case part.URL != nil:
			texts = append(texts, strings.TrimSpace(part.Filename+" "+*part.URL))
		case part.Raw != nil:
			return p, "", a2a.Errorf(a2a.CodeContentTypeNotSupported, "message.parts[%d] is a file sent inline (%s): the board "+
				"keeps text only; send a link to it (a url part) instead", i, part.MediaType)
		}
	}
	text := strings.TrimSpace(strings.Join(texts, "\n\n"))
	if text == "" {
		return p, "", a2a.Errorf(a2a.CodeInvalidParams, "the message says nothing: it needs a text part").
			WithField("message.parts", "at least one text part")
	}
	if n := utf8.RuneCountInString(text); n > MaxTaskBody {
		return p, "", a2a.Errorf(a2a.CodeInvalidParams, "the message has %d characters; a task holds at most %d "+
			"(and a message on a task %d)", n, MaxTaskBody, MaxMessage).WithField("message.parts", "too long")
	}
	return p, text, nil
}

// a2aTitle is the first line of text, cut to maxA2ATitle characters.
func a2aTitle(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
	if utf8.RuneCountInString(line) > maxA2ATitle {
		line = string([]rune(line)[:maxA2ATitle-1]) + "…"
	}
	if line == "" {
		return "Task from A2A"
	}
	return line
}

// a2aProject is the project a new task goes to: the message's context,
// or the agent's only project.
func a2aProject(c *a2aCaller, context string) (string, error) {
	if context != "" {
		if !slices.Contains(c.projects, context) {
			return "", a2a.Errorf(a2a.CodeInvalidParams, "context %q is not one of agent %s's projects (%s); a task's "+
				"context is its project", context, c.agent, strings.Join(c.projects, ", ")).
				WithField("message.contextId", "one of the agent's projects")
		}
		return context, nil
	}
	if len(c.projects) == 1 {
		return c.projects[0], nil
	}
	return "", a2a.Errorf(a2a.CodeInvalidParams, "agent %s works in %d projects (%s): name one as the message's contextId",
		c.agent, len(c.projects), strings.Join(c.projects, ", ")).WithField("message.contextId", "required")
}

// a2aGetTask is GetTask.
func (m *Module) a2aGetTask(ctx context.Context, c *a2aCaller, params json.RawMessage) (a2a.Task, error) {
	var p a2a.TaskRequest
	if e := a2a.DecodeParams(params, &p); e != nil {
		return a2a.Task{}, e
	}
	th, err := m.a2aRead(ctx, c, p.ID)
	if err != nil {
		return a2a.Task{}, err
	}
	return a2aTask(th, c.agent, p.HistoryLength), nil
}

// a2aCancelTask is CancelTask: pact_cancel, for the task's poster. A task
// already closed is not cancelable (TaskNotCancelable).
func (m *Module) a2aCancelTask(ctx context.Context, c *a2aCaller, params json.RawMessage) (a2a.Task, error) {
	var p a2a.TaskRequest
	if e := a2a.DecodeParams(params, &p); e != nil {
		return a2a.Task{}, e
	}
	th, err := m.a2aRead(ctx, c, p.ID)
	if err != nil {
		return a2a.Task{}, err
	}
	if a2aStates[th.Task.Status].Terminal() {
		return a2a.Task{}, a2a.Errorf(a2a.CodeTaskNotCancelable, "task %s is %s already", th.Task.ID, th.Task.Status)
	}
	reason := "canceled by its poster over A2A"
	if r, ok := p.Metadata["reason"].(string); ok && strings.TrimSpace(r) != "" {
		reason = r
	}
	if err := m.a2aTool(ctx, c, "pact_cancel", map[string]any{"task_id": p.ID, "reason": reason, "mandate_id": c.root}, nil); err != nil {
		return a2a.Task{}, err
	}
	if th, err = m.a2aRead(ctx, c, p.ID); err != nil {
		return a2a.Task{}, err
	}
	return a2aTask(th, c.agent, p.HistoryLength), nil
}

// a2aRead reads a task and its thread through pact_message.
func (m *Module) a2aRead(ctx context.Context, c *a2aCaller, taskID string) (threadOut, error) {
	var th threadOut
	err := m.a2aTool(ctx, c, "pact_message", map[string]any{"task_id": taskID, "mandate_id": c.root}, &th)
	return th, err
}

// a2aTool calls one of the board's tools as the agent, through the
// kernel's pipeline, and hands its answer to out (a pointer to its
// output type, or nil).
func (m *Module) a2aTool(ctx context.Context, c *a2aCaller, name string, args map[string]any, out any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	got, err := m.tools.Call(ctx, c.agent, name, raw)
	if err != nil || out == nil {
		return err
	}
	switch o := out.(type) {
	case *postOut:
		*o, _ = got.(postOut)
	case *threadOut:
		*o, _ = got.(threadOut)
	default:
		return fmt.Errorf("a2a: no reading of %s's answer into %T", name, out)
	}
	return nil
}
