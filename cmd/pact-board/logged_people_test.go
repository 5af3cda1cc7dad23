package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"

	"github.com/pactboard/pact/core/identity"
)

// logSteps are the steps of TestEveryUnsafeOperationWritesOneLogEntry by
// operation id: the people's and the agents' here, the work's (tasks,
// mandates, pacts, notes, notices, the log) in logged_work_test.go.
var logSteps = joinSteps(peopleSteps, workSteps)

func joinSteps(parts ...map[string]func(*logBoard) logCall) map[string]func(*logBoard) logCall {
	out := map[string]func(*logBoard) logCall{}
	for _, p := range parts {
		maps.Copy(out, p)
	}
	return out
}

// agentParam names the agent of a call.
func agentParam(id string) map[string]string { return map[string]string{"agent_id": id} }

// newKey is a fresh Ed25519 public key as the Admin API takes one: base64url
// of 32 raw bytes (any 32 bytes will do for a key nobody signs with).
func newKey() string {
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	return base64.RawURLEncoding.EncodeToString(raw)
}

var peopleSteps = map[string]func(*logBoard) logCall{
	// People and the organization.
	"people-create-human": func(b *logBoard) logCall {
		id := b.id("new")
		return logCall{as: "ana", body: jsonOf(map[string]any{"id": id, "name": "New", "email": id + "@example.com"}),
			action: "admin.human.add"}
	},
	"people-update-human": func(b *logBoard) logCall {
		id := b.id("renamed")
		b.Person("ana", id, identity.Viewer)
		return logCall{as: "ana", params: map[string]string{"human_id": id}, body: `{"name": "Renamed"}`, action: "admin.human.update"}
	},
	"people-accept-invitation": func(b *logBoard) logCall {
		id := b.id("ivy")
		b.Invited("ana", id, identity.Viewer)
		return logCall{as: id, params: map[string]string{"human_id": id}, action: "admin.human.bind"}
	},
	"people-signup": func(b *logBoard) logCall {
		// The account's email is <as>@example.com: its owner's id is <as>.
		return logCall{as: b.id("sam"), action: "org.created",
			body: `{"org_name": "Sam's Lab", "display_name": "Sam", "accept_terms": true, "terms_version": "2026-01"}`}
	},
	"people-update-me": func(*logBoard) logCall {
		return logCall{as: "vic", body: `{"language": "th"}`, action: "admin.me.update"}
	},
	"people-update-org": func(*logBoard) logCall {
		return logCall{as: "ana", body: `{"name": "Ana's Office"}`, action: "admin.org.update"}
	},
	"people-set-kill-switch": func(b *logBoard) logCall {
		return logCall{as: "ana", body: `{"halted": true}`, action: "admin.kill_switch",
			then: func() { b.ok("ana", "POST", "/kill-switch", `{"halted": false}`) }}
	},
	"board-set-a2a-remote": func(b *logBoard) logCall {
		return logCall{as: "ana", params: map[string]string{"agent_id": "remote-web"},
			body: jsonOf(map[string]any{"card_url": b.card}), action: "admin.agent.a2a_remote"}
	},
	"people-set-approval-rules": func(*logBoard) logCall {
		return logCall{as: "ana", body: `{"actions": ["deploy.*", "finance.*", "customer.message", "data.delete"]}`,
			action: "admin.approval_rules.update"}
	},
	"people-create-project": func(b *logBoard) logCall {
		return logCall{as: "ana", body: jsonOf(map[string]any{"id": b.id("proj"), "name": "Project"}), action: "admin.project.add"}
	},
	"people-update-project": func(b *logBoard) logCall {
		id := b.id("proj")
		b.Project("ana", id, false)
		return logCall{as: "ana", params: map[string]string{"project_id": id}, body: `{"production": true}`, action: "admin.project.flags"}
	},

	// Roles.
	"people-save-role": func(b *logBoard) logCall {
		return logCall{as: "val", params: map[string]string{"role_id": b.id("reviewer")}, action: "admin.role.save",
			body: `{"name": "Reviewer", "client": "code", "actions": ["task.read"]}`}
	},
	"people-archive-role": func(b *logBoard) logCall {
		id := b.id("reviewer")
		b.ok("val", "PUT", "/roles/"+id, `{"name": "Reviewer", "client": "code", "actions": ["task.read"]}`)
		return logCall{as: "val", params: map[string]string{"role_id": id}, action: "admin.role.archive"}
	},

	// Agents.
	"people-create-agent": func(b *logBoard) logCall {
		return logCall{as: "val", body: jsonOf(map[string]any{"id": b.id("made"), "client": "code", "projects": []string{"web"}}),
			action: "admin.agent.register"}
	},
	"people-hire-agent": func(b *logBoard) logCall {
		return logCall{as: "val", body: jsonOf(map[string]any{"role": "code", "project": "web", "id": b.id("hired")}),
			action: "admin.agent.hire"}
	},
	"people-update-agent": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.agent("moved")), body: `{"owner": "val"}`, action: "admin.agent.update"}
	},
	"people-change-agent-role": func(b *logBoard) logCall {
		id := b.hire("runner")
		return logCall{as: "val", params: agentParam(id), body: `{"role_id": "worker"}`, action: "admin.agent.role"}
	},
	"people-renew-agent": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.hire("code")), action: "admin.agent.renew"}
	},
	"people-create-setup-code": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.hire("code")), action: "admin.agent.setup_code"}
	},
	"people-set-agent-preferences": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.agent("pref")), body: `{"preferences": {"tone": "brief"}}`,
			action: "admin.agent.preferences"}
	},
	"people-set-agent-status": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.agent("paused")), body: `{"status": "paused"}`, action: "admin.agent.status"}
	},
	"people-issue-agent-token": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.agent("tokened")), body: `{"days": 7}`, action: "admin.token.issue"}
	},
	"people-revoke-agent-tokens": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.agent("untokened")), action: "admin.token.revoke"}
	},

	// Agents' keys and the trusted roots.
	"people-add-agent-key": func(b *logBoard) logCall {
		return logCall{as: "val", params: agentParam(b.agent("keyed")), body: jsonOf(map[string]string{"public_key": newKey()}),
			action: "admin.agent_key.add"}
	},
	"people-revoke-agent-key": func(b *logBoard) logCall {
		id := b.agent("unkeyed")
		kid := b.ok("val", "POST", "/agents/"+id+"/keys", jsonOf(map[string]string{"public_key": newKey()})).Body["kid"]
		return logCall{as: "val", params: map[string]string{"agent_id": id, "kid": fmt.Sprint(kid)}, action: "admin.agent_key.revoke"}
	},
	"people-add-trusted-root": func(*logBoard) logCall {
		return logCall{as: "ana", body: jsonOf(map[string]string{"human": "val", "public_key": newKey()}), action: "admin.trusted_root.add"}
	},
	"people-revoke-trusted-root": func(b *logBoard) logCall {
		key := newKey()
		b.ok("ana", "POST", "/trusted-roots", jsonOf(map[string]string{"human": "val", "public_key": key}))
		return logCall{as: "ana", params: map[string]string{"principal": key}, action: "admin.trusted_root.revoke"}
	},
}

// hire hires a fresh agent of role in project web through the Admin API and
// returns its id.
func (b *logBoard) hire(role string) string {
	b.T.Helper()
	id := b.id("hired")
	b.ok("val", "POST", "/agents/hire", jsonOf(map[string]any{"role": role, "project": "web", "id": id}))
	return id
}
