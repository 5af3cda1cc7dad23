import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Person } from "./client";
import { can, type Operation } from "./roles";

export const PersonContext = createContext<Person | null>(null);

/** LiveContext counts needs-you events from GET /admin/api/live. */
export const LiveContext = createContext(0);

export function usePerson(): Person {
  const p = useContext(PersonContext);
  if (!p) throw new Error("usePerson outside a signed-in console");
  return p;
}

/** useCan tells whether the signed-in person may call operation. */
export function useCan(operation: Operation): boolean {
  return can(usePerson().role, operation);
}
