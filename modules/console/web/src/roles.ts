// Who may do what, in one place: viewers see no control the server would
// refuse. docs/openapi.json does not carry an operation's least role, so
// this is the role each module hands kernel.AdminOp when it registers the
// operation (modules/board/admin_decisions.go, modules/board/admin_tasks.go,
// modules/pacts/admin.go, admin_seats.go, admin_decisions.go). Keyed by
// operationId, so an operation the contract drops fails the type check.
import type { operations } from "./api";
import type { Role } from "./client";

const rank: Record<Role, number> = { viewer: 0, approver: 1, owner: 2 };

const leastRole = {
  "board-get-overview": "viewer",
  "board-list-tasks": "viewer",
  "board-get-task": "viewer",
  "board-approve-task": "approver",
  "board-reject-task": "approver",
  "board-resume-task": "approver",
  "board-release-task": "approver",
  "board-assign-task": "approver",
  "board-message-task": "approver",
  "board-cancel-task": "approver",
  "pacts-list": "viewer",
  "pacts-get": "viewer",
  "pacts-thread": "viewer",
  "pacts-record": "viewer",
  "pacts-questions": "approver",
  "pacts-answer": "approver",
  "pacts-pause-seat": "approver",
  "pacts-wake-seat": "approver",
  "pacts-close": "approver",
  "people-list-projects": "viewer",
  "people-list-agents": "viewer",
} as const satisfies Partial<Record<keyof operations, Role>>;

export type Operation = keyof typeof leastRole;

/** can tells whether a person of role may call operation. */
export function can(role: Role, operation: Operation): boolean {
  return rank[role] >= rank[leastRole[operation]];
}
