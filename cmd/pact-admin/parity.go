package main

// The CLI's parity with the Admin API (docs/pact-admin.md, CLI-002): every
// operation of docs/openapi.json either has the pact-admin command below
// that makes the same call, or is listed in withoutCommand with the reason
// it has none. parity_test.go derives the operations from docs/openapi.json,
// so an operation added to the API fails it until it is classified here.

// apiCommands maps an Admin API operation (its operationId) to the
// pact-admin command that calls the same module method.
func apiCommands() map[string]string {
	return map[string]string{
		// Agents.
		"people-create-agent":          "agent-register",
		"people-hire-agent":            "hire",
		"people-create-setup-code":     "setup-code",
		"people-set-agent-status":      "agent-status",
		"people-set-agent-preferences": "agent-prefs",
		"people-issue-agent-token":     "token-issue",
		"people-revoke-agent-tokens":   "token-revoke",
		"people-add-agent-key":         "agent-key-add",
		"people-revoke-agent-key":      "agent-key-revoke",
		"credentials-import":           "credential-import",
		// Roles.
		"people-list-roles":   "role-list",
		"people-save-role":    "role-save",
		"people-archive-role": "role-archive",
		// People, projects, the organization.
		"people-list-agents":         "agent-list",
		"people-list-humans":         "human-list",
		"people-list-projects":       "project-list",
		"people-create-human":        "human-add",
		"people-create-project":      "project-add",
		"people-update-project":      "project-set",
		"people-set-kill-switch":     "halt", // and unhalt
		"people-list-trusted-roots":  "trusted-root-list",
		"people-add-trusted-root":    "trusted-root-add",
		"people-revoke-trusted-root": "trusted-root-revoke",
		// Mandates.
		"board-issue-mandate":  "mandate-issue",
		"board-revoke-mandate": "mandate-revoke",
		// Tasks.
		"board-list-tasks":         "task-list",
		"board-approve-task":       "task-approve",
		"board-reject-task":        "task-reject",
		"board-resume-task":        "task-resume",
		"board-message-task":       "task-message",
		"board-change-task-answer": "task-answer",
		"board-cancel-task":        "task-cancel",
		"board-assign-task":        "task-assign",
		"board-release-task":       "task-release",
		"board-edit-task":          "task-edit",
		// Pacts.
		"pacts-list":        "pact-list",
		"pacts-get":         "pact-show",
		"pacts-questions":   "pact-questions",
		"pacts-answer":      "pact-answer",
		"pacts-close":       "pact-close",
		"pacts-undo-change": "pact-undo",
		// Notifications.
		"notify-list-destinations":           "destination-list",
		"notify-list-notifications":          "notifications",
		"notify-get-email-settings":          "email-choices",
		"notify-set-email-settings":          "email-choose",
		"notify-count-notifications":         "notification-counts",
		"notify-mark-notification-read":      "notification-read",
		"notify-mark-all-notifications-read": "notifications-read",
		"notify-add-destination":             "destination-add",
		"notify-disable-destination":         "destination-disable",
		// The log.
		"audit-erase-entry": "payload-erase",
		"audit-verify-log":  "log-verify",
	}
}

// The reasons an operation has no command.
const (
	reasonAccount = "console-only: it acts for a signed-in account of the OIDC issuer (the console's session), " +
		"which pact-admin, acting as a person named by --by, does not have"
	reasonLive = "streaming: /admin/api/live is read by the console"
	reasonMe   = "console-only: the signed-in person's own view and settings (the console's account menu); " +
		"pact-admin has no signed-in person, it names one with --by"
	reasonRead = "not yet: a read the console shows; its command is left for later (issue 31, section 3)"
	reasonNext = "not yet: a change the console makes; its command is left for later (issue 31, section 3)"
)

// withoutCommand lists the operations with no command, each with why.
// The per-person inbox (/admin/api/me/notifications…) is added by issue 31
// section 1; its command comes with it.
func withoutCommand() map[string]string {
	return map[string]string{
		"people-list-invitations":  reasonAccount,
		"people-accept-invitation": reasonAccount,
		"people-signup":            reasonAccount,
		"people-signup-status":     reasonAccount,
		"console-live":             reasonLive,
		"people-get-me":            reasonMe,
		"people-update-me":         reasonMe,
		"pacts-get-my-settings":    reasonMe,
		"pacts-set-my-settings":    reasonMe,
		"pacts-join":               reasonNext,
		"pacts-post":               reasonNext,
		"pacts-write-section":      reasonNext,
		"pacts-write-handshake":    reasonNext,

		"people-get-agent-connection":   reasonRead,
		"people-list-agent-keys":        reasonRead,
		"people-get-approval-rules":     reasonRead,
		"people-get-credentials-status": reasonRead,
		"audit-list-entries":            reasonRead,
		"audit-list-chains":             reasonRead,
		"board-list-mandates":           reasonRead,
		"board-get-mandate-impact":      reasonRead,
		"people-get-org":                reasonRead,
		"board-get-overview":            reasonRead,
		"pacts-get-settings":            reasonRead,
		"pacts-changes":                 reasonRead,
		"pacts-thread":                  reasonRead,
		"pacts-record":                  reasonRead,
		"notes-list-notes":              reasonRead,
		"notes-get-note":                reasonRead,
		"board-get-task":                reasonRead,

		"people-update-agent":       reasonNext,
		"people-renew-agent":        reasonNext,
		"people-change-agent-role":  reasonNext,
		"pacts-wake-delivery":       reasonNext,
		"people-set-approval-rules": reasonNext,
		"board-set-a2a-remote":      reasonNext,
		"notes-erase-version":       reasonNext,
		"people-update-human":       reasonNext,
		"board-replace-mandate":     reasonNext,
		"people-update-org":         reasonNext,
		"pacts-set-settings":        reasonNext,
		"pacts-create":              reasonNext,
		"pacts-invite":              reasonNext,
		"pacts-pause-seat":          reasonNext,
		"pacts-remove-seat":         reasonNext,
		"pacts-wake-seat":           reasonNext,
		"notes-write-note":          reasonNext,
		"notes-archive-note":        reasonNext,
		"notes-pin-note":            reasonNext,
		"notes-unpin-note":          reasonNext,
	}
}
