package board

import (
	"context"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/kernel"
)

// The push notification config methods of the A2A endpoint (docs/a2a.md,
// "Push notifications"). Each reads the task first through pact_message,
// as the agent, through the kernel's pipeline: a task it cannot see is
// TaskNotFound, and the read is its call in the log. What a config may
// say and who sees it is the push service's (service_a2a_push.go).

// registerPush sets the push service up, with its delivery worker and the
// channel a stop must reach (kernel.Channel).
func (m *Module) registerPush(h *kernel.Host) error {
	m.push = newPushService(h, m.opts)
	if err := h.Channel(kernel.Channel{Name: "a2a-push", Audience: kernel.AgentAudience,
		Summary: "A2A push notifications: a task's changes posted to the URL of the agent's push config",
		Exempt: map[kernel.Stop]string{kernel.StopRevokeLink: "an A2A agent acts under its own root mandate only, " +
			"which no link sits above: revoking it is revoke-root"}}); err != nil {
		return err
	}
	h.Worker("a2a-push", m.pushWorker)
	h.Worker("a2a-reseal", func(ctx context.Context) error {
		if n, err := m.push.reseal(ctx); err != nil {
			m.logger.Warn("A2A push values and remote credentials stay sealed under older keys until the next start", "error", err)
		} else if n > 0 {
			m.logger.Info("sealed A2A push values and remote credentials under the board's active key", "values", n)
		}
		return nil
	})
	return nil
}

// a2aPushMethod answers the four push config methods.
func (m *Module) a2aPushMethod(ctx context.Context, c *a2aCaller, req a2a.Request) (any, error) {
	if !m.push.served() {
		return nil, m.push.notServed()
	}
	if req.Method == a2a.MethodCreatePushConfig {
		var p a2a.TaskPushNotificationConfig
		if e := a2a.DecodeParams(req.Params, &p); e != nil {
			return nil, e
		}
		if p.TaskID == "" {
			return nil, a2a.Errorf(a2a.CodeInvalidParams, "taskId is missing: the task whose changes to push").WithField("taskId", "required")
		}
		if _, err := m.a2aRead(ctx, c, p.TaskID); err != nil {
			return nil, err
		}
		d, err := m.push.check(ctx, &p, "")
		if err != nil {
			return nil, err
		}
		return m.push.add(ctx, c, p.TaskID, d)
	}
	var p a2a.PushConfigRequest
	if e := a2a.DecodeParams(req.Params, &p); e != nil {
		return nil, e
	}
	switch {
	case p.TaskID == "":
		return nil, a2a.Errorf(a2a.CodeInvalidParams, "taskId is missing: the task the config is on").WithField("taskId", "required")
	case req.Method == a2a.MethodListPushConfigs && p.ID != "":
		return nil, a2a.Errorf(a2a.CodeInvalidParams, "ListTaskPushNotificationConfigs takes no id: it lists them all; "+
			"read one with GetTaskPushNotificationConfig").WithField("id", "not read")
	case req.Method != a2a.MethodListPushConfigs && p.ID == "":
		return nil, a2a.Errorf(a2a.CodeInvalidParams, "id is missing: the config's id, as its creation answered").WithField("id", "required")
	case req.Method != a2a.MethodListPushConfigs && (p.PageSize != 0 || p.PageToken != ""):
		return nil, a2a.Errorf(a2a.CodeInvalidParams, "%s reads one config: pageSize and pageToken go with "+
			"ListTaskPushNotificationConfigs", req.Method).WithField("pageSize", "not read")
	}
	if _, err := m.a2aRead(ctx, c, p.TaskID); err != nil {
		return nil, err
	}
	switch req.Method {
	case a2a.MethodGetPushConfig:
		return m.push.get(ctx, c.agent, p.TaskID, p.ID)
	case a2a.MethodListPushConfigs:
		return m.push.list(ctx, c.agent, p.TaskID, p.PageSize, p.PageToken)
	}
	if err := m.push.remove(ctx, c.agent, p.TaskID, p.ID); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// a2aSendPush reads the push config of a SendMessage's configuration, if
// any, before anything is sent: for the task the message posts (taskId
// empty) or continues (taskId its own).
func (m *Module) a2aSendPush(ctx context.Context, p a2a.SendMessageRequest) (*pushDraft, error) {
	if p.Configuration == nil || p.Configuration.TaskPushNotificationConfig == nil {
		return nil, nil
	}
	cfg := p.Configuration.TaskPushNotificationConfig
	const field = "configuration.taskPushNotificationConfig."
	if cfg.TaskID != "" && cfg.TaskID != p.Message.TaskID {
		return nil, a2a.Errorf(a2a.CodeInvalidParams, "the push config's taskId is %q, not the message's task: leave it "+
			"out, and it is the task the message posts or continues", cfg.TaskID).WithField(field+"taskId", "empty")
	}
	d, err := m.push.check(ctx, cfg, field)
	if err != nil {
		return nil, err
	}
	return &d, nil
}
