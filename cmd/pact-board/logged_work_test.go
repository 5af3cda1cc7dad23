package main

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// workSteps are the steps of the operations on the work: tasks, mandates,
// pacts, notes, notices and the log (logSteps).
var workSteps = map[string]func(*logBoard) logCall{
	// Tasks: each step posts its own, by a fresh agent.
	"board-approve-task": func(b *logBoard) logCall {
		return logCall{as: "val", params: taskParam(b.task("deploy.web")), action: "admin.task.approve"}
	},
	"board-reject-task": func(b *logBoard) logCall {
		return logCall{as: "val", params: taskParam(b.task("deploy.web")), action: "admin.task.approve"}
	},
	"board-resume-task": func(b *logBoard) logCall {
		return logCall{as: "val", params: taskParam(b.deferred()), body: `{"answer": "eu-west"}`, action: "admin.task.resume"}
	},
	"board-change-task-answer": func(b *logBoard) logCall {
		id := b.deferred()
		b.ok("val", "POST", "/tasks/"+id+"/resume", `{"answer": "eu-west"}`)
		return logCall{as: "val", params: taskParam(id), body: `{"answer": "us-east"}`, action: "admin.task.answer"}
	},
	"board-assign-task": func(b *logBoard) logCall {
		return logCall{as: "val", params: taskParam(b.task("")), body: jsonOf(map[string]string{"agent": b.agent("assignee")}),
			action: "admin.task.assign"}
	},
	"board-cancel-task": func(b *logBoard) logCall {
		return logCall{as: "val", params: taskParam(b.task("")), body: `{"reason": "not needed"}`, action: "admin.task.cancel"}
	},
	"board-edit-task": func(b *logBoard) logCall {
		return logCall{as: "val", params: taskParam(b.task("")), body: `{"title": "Edited"}`, action: "admin.task.edit"}
	},
	"board-message-task": func(b *logBoard) logCall {
		return logCall{as: "val", params: taskParam(b.task("")), body: `{"body": "Any news?"}`, action: "admin.task.message"}
	},
	"board-release-task": func(b *logBoard) logCall {
		id, holder := b.task(""), b.agent("holder")
		b.OK(holder, "pact_claim", map[string]any{"task_id": id, "mandate_id": b.Root(holder)})
		return logCall{as: "val", params: taskParam(id), action: "admin.task.release"}
	},

	// Mandates.
	"board-issue-mandate": func(b *logBoard) logCall {
		return logCall{as: "val", body: jsonOf(map[string]any{"holder": b.agent("holder"), "scope": []string{"task.read@project:web"}}),
			action: "admin.mandate.issue"}
	},
	"board-replace-mandate": func(b *logBoard) logCall {
		root := b.Root(b.agent("holder"))
		return logCall{as: "val", params: map[string]string{"mandate_id": root}, body: `{"scope": ["task.read@project:web"], "revoke": true}`,
			action: "admin.mandate.replace"}
	},
	"board-revoke-mandate": func(b *logBoard) logCall {
		return logCall{as: "val", params: map[string]string{"mandate_id": b.Root(b.agent("holder"))}, action: "admin.mandate.revoke"}
	},

	// Pacts: ana's pact has her seat, a seat waiting for val and an agent's
	// seat, joined.
	"pacts-create": func(*logBoard) logCall {
		return logCall{as: "ana", body: `{"project_id": "web", "name": "Launch", "purpose": "Ship it", "prefix": "A"}`,
			action: "admin.pact.create"}
	},
	"pacts-join": func(b *logBoard) logCall {
		return logCall{as: "val", params: pactParam(b.pact()), action: "admin.pact.join"}
	},
	"pacts-post": func(b *logBoard) logCall {
		return logCall{as: "ana", params: pactParam(b.pact()), body: `{"body": "Ready when you are"}`, action: "admin.pact.post"}
	},
	"pacts-write-section": func(b *logBoard) logCall {
		return logCall{as: "ana", params: map[string]string{"pact_id": b.pact(), "key": "@ana"}, body: `{"body": "My part"}`,
			action: "admin.pact.section"}
	},
	"pacts-write-handshake": func(b *logBoard) logCall {
		return logCall{as: "ana", params: pactParam(b.pact()), body: `{"handshake": "Ask me first"}`, action: "admin.pact.handshake"}
	},
	"pacts-invite": func(b *logBoard) logCall {
		return logCall{as: "val", params: pactParam(b.pact()), body: jsonOf(map[string]string{"agent_id": b.agent("guest"), "prefix": "G"}),
			action: "admin.pact.invite"}
	},
	"pacts-pause-seat": func(b *logBoard) logCall {
		return logCall{as: "val", params: b.seat(b.pact()), action: "admin.pact.pause_seat"}
	},
	"pacts-wake-seat": func(b *logBoard) logCall {
		seat := b.seat(b.pact())
		b.ok("val", "POST", "/pacts/"+seat["pact_id"]+"/seats/"+seat["seat"]+"/pause", "")
		return logCall{as: "val", params: seat, action: "admin.pact.wake_seat"}
	},
	"pacts-remove-seat": func(b *logBoard) logCall {
		return logCall{as: "val", params: b.seat(b.pact()), action: "admin.pact.remove_seat"}
	},
	"pacts-close": func(b *logBoard) logCall {
		return logCall{as: "val", params: pactParam(b.pact()), action: "admin.pact.close"}
	},
	"pacts-answer": func(b *logBoard) logCall {
		pact := b.pact()
		out := b.OK(b.lastAgent, "raise_pact_decision", map[string]any{"pact_id": pact, "question": "Ship Friday?",
			"options": []any{"Yes", "No"}, "mandate_id": b.Root(b.lastAgent)})
		return logCall{as: "val", params: map[string]string{"decision_id": out["decision_id"].(string)}, body: `{"choice": "Yes"}`,
			action: "admin.pact.answer"}
	},
	"pacts-undo-change": func(b *logBoard) logCall {
		pact := b.pact()
		for _, body := range []string{"first", "second"} {
			b.OK(b.lastAgent, "update_pact_section", map[string]any{"pact_id": pact, "body": body, "mandate_id": b.Root(b.lastAgent)})
		}
		entry := b.number(`SELECT max(id) FROM entries WHERE action = 'update_pact_section' AND outcome = 'ok'`)
		return logCall{as: "val", params: map[string]string{"entry_id": entry}, action: "admin.pact.undo"}
	},
	"pacts-set-settings": func(*logBoard) logCall {
		return logCall{as: "ana", body: `{"open_limit": 500}`, action: "admin.pact.settings"}
	},
	"pacts-set-my-settings": func(*logBoard) logCall {
		return logCall{as: "vic", body: `{"nudge_after": "1h"}`, action: "admin.pact.my_settings"}
	},
	"pacts-wake-delivery": func(b *logBoard) logCall {
		id := b.agent("hooked")
		b.OK(id, "set_pact_delivery", map[string]any{"mode": "webhook", "url": b.hook, "mandate_id": b.Root(id)})
		return logCall{as: "val", params: agentParam(id), action: "admin.pact.delivery.wake"}
	},

	// Notes.
	"notes-write-note": func(b *logBoard) logCall {
		return logCall{as: "val", params: map[string]string{"project_id": "web", "key": b.id("plan")}, body: `{"body": "Ship it"}`,
			action: "admin.context.write"}
	},
	"notes-archive-note": func(b *logBoard) logCall {
		return logCall{as: "val", params: b.note(), action: "admin.context.archive"}
	},
	"notes-pin-note": func(b *logBoard) logCall {
		return logCall{as: "val", params: b.note(), action: "admin.context.pin"}
	},
	"notes-unpin-note": func(b *logBoard) logCall {
		note := b.note()
		b.ok("val", "POST", "/projects/web/context/"+note["key"]+"/pin", "")
		return logCall{as: "val", params: note, action: "admin.context.pin"}
	},
	"notes-erase-version": func(b *logBoard) logCall {
		note := b.note()
		version := b.number(`SELECT max(id) FROM context_note_versions WHERE project_id = 'web' AND key = ?`, note["key"])
		return logCall{as: "ana", params: map[string]string{"version_id": version}, action: "admin.context.erase"}
	},

	// Notices.
	"notify-add-destination": func(b *logBoard) logCall {
		return logCall{as: "ana", body: jsonOf(map[string]string{"notifier": "webhook", "url": b.hook}), action: "admin.destination.add"}
	},
	"notify-disable-destination": func(b *logBoard) logCall {
		b.ok("ana", "POST", "/destinations", jsonOf(map[string]string{"notifier": "webhook", "url": b.hook}))
		id := b.number(`SELECT max(id) FROM notify_destinations`)
		return logCall{as: "ana", params: map[string]string{"destination_id": id}, action: "admin.destination.disable"}
	},
	"notify-mark-notification-read": func(b *logBoard) logCall {
		b.task("deploy.web") // asks the approvers: a notice in ana's inbox
		id := b.number(`SELECT max(notification_id) FROM inbox WHERE human_id = 'ana' AND read_at IS NULL`)
		return logCall{as: "ana", params: map[string]string{"notification_id": id}}
	},
	"notify-mark-all-notifications-read": func(b *logBoard) logCall {
		b.task("deploy.web")
		return logCall{as: "ana", body: `{}`}
	},
	"notify-set-email-settings": func(*logBoard) logCall {
		return logCall{as: "vic", body: `{"kinds": []}`}
	},

	// The log and outside credentials.
	"audit-erase-entry": func(b *logBoard) logCall {
		b.task("")
		entry := b.number(`SELECT max(id) FROM entries WHERE action = 'pact_post'`)
		return logCall{as: "ana", params: map[string]string{"entry_id": entry}, action: "admin.payload.erase"}
	},
	"credentials-import": func(b *logBoard) logCall {
		key := newKey()
		b.ok("ana", "POST", "/trusted-roots", jsonOf(map[string]string{"human": "val", "public_key": key}))
		return logCall{as: "val", params: agentParam(b.agent("imported")), body: jsonOf(map[string]string{"format": "tenuo", "credential": key}),
			action: "admin.credential.import"}
	},
}

func taskParam(id string) map[string]string { return map[string]string{"task_id": id} }

func pactParam(id string) map[string]string { return map[string]string{"pact_id": id} }

// task has a fresh agent post a task in web (with action, when not "") and
// returns its id; deploy.web waits for an approver.
func (b *logBoard) task(action string) string {
	b.T.Helper()
	poster := b.agent("poster")
	args := map[string]any{"project_id": "web", "title": "Ship the page", "mandate_id": b.Root(poster)}
	if action != "" {
		args["action"] = action
	}
	return b.OK(poster, "pact_post", args)["task_id"].(string)
}

// deferred is a task its worker deferred with a question.
func (b *logBoard) deferred() string {
	b.T.Helper()
	id := b.task("")
	worker := b.agent("worker")
	b.OK(worker, "pact_claim", map[string]any{"task_id": id, "mandate_id": b.Root(worker)})
	b.OK(worker, "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": b.Root(worker),
		"result": "Which region?"})
	return id
}

// pact is a fresh pact of ana's in web, with a seat waiting for val and a
// fresh agent's seat, joined (the agent is lastAgent).
func (b *logBoard) pact() string {
	b.T.Helper()
	agent := b.agent("seated")
	id := b.ok("ana", "POST", "/pacts", jsonOf(map[string]any{"project_id": "web", "name": "Launch", "purpose": "Ship it",
		"prefix": "A", "invite": []map[string]string{{"human_id": "val", "prefix": "V"}, {"agent_id": agent, "prefix": "B"}}})).
		Body["pact_id"].(string)
	b.OK(agent, "join_pact", map[string]any{"pact_id": id, "mandate_id": b.Root(agent)})
	return id
}

// seat names pact's agent seat.
func (b *logBoard) seat(pact string) map[string]string {
	return map[string]string{"pact_id": pact, "seat": "@" + b.lastAgent}
}

// note is a fresh note of val's in web.
func (b *logBoard) note() map[string]string {
	b.T.Helper()
	key := b.id("plan")
	b.ok("val", "PUT", "/projects/web/context/"+key, `{"body": "Ship it"}`)
	return map[string]string{"project_id": "web", "key": key}
}

// stubCredentials is a credential plugin at its boundary, as the
// credentials module's tests use (the real Tenuo import is tested in
// plugins/credential-tenuo): a credential is the base64url key of the
// trusted root that issued it, granting task.read in web for a day.
type stubCredentials struct{}

func (s stubCredentials) Credential(string) (credential.Credential, error) { return s, nil }

func (stubCredentials) Format(context.Context) (string, error) { return "tenuo", nil }

func (stubCredentials) Export(context.Context, credential.ExportRequest) (*credential.Exported, error) {
	return nil, errs.E(errs.InvalidRequest, "this stub imports only")
}

func (stubCredentials) RevocationList(context.Context, credential.RevocationRequest) (*credential.RevocationList, error) {
	return nil, errs.E(errs.InvalidRequest, "this stub imports only")
}

func (stubCredentials) Import(_ context.Context, r credential.ImportRequest) (*credential.ImportedLink, error) {
	issuer, err := base64.RawURLEncoding.DecodeString(r.Credential)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "not a key: %v", err)
	}
	return &credential.ImportedLink{Scope: []string{"task.read@project:web"}, ExpiresAt: r.Now.Add(24 * time.Hour),
		ExternalID: "stub-" + r.Credential[:8], IssuerPrincipal: issuer, MaxDelegations: 1}, nil
}
