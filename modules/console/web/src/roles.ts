// Who may do what, in one place: viewers see no control the server would
// refuse. Each operation's least role comes from docs/openapi.json
// (x-pact-least-role, which the kernel's gate writes for every gated
// operation), generated into roles.gen.ts by build.mjs.
import type { operations } from "./api";
import type { Role } from "./client";
import { leastRole as documented } from "./roles.gen";

const rank: Record<Role | "account", number> = { account: -1, viewer: 0, approver: 1, owner: 2 };

// Keyed by operationId, so an operation the contract drops fails the type
// check.
const leastRole: Partial<Record<keyof operations, Role | "account">> = documented;

export type Operation = keyof typeof documented & keyof operations;

/** can tells whether a person of role may call operation. */
export function can(role: Role, operation: Operation): boolean {
  const least = leastRole[operation];
  return least !== undefined && rank[role] >= rank[least];
}
