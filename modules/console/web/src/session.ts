import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Person } from "./client";
import { can, type Operation } from "./roles";

export const PersonContext = createContext<Person | null>(null);

/** LiveContext counts needs-you events from GET /admin/api/live. */
export const LiveContext = createContext(0);

/** NoticeContext counts every event of GET /admin/api/live (needs-you and notice). */
export const NoticeContext = createContext(0);

/** NoticeChanged tells the bell and Notifications to read again (after marking read). */
export const NoticeChanged = createContext<() => void>(() => {});

export function usePerson(): Person {
  const p = useContext(PersonContext);
  if (!p) throw new Error("usePerson outside a signed-in console");
  return p;
}

/** useCan tells whether the signed-in person may call operation. */
export function useCan(operation: Operation): boolean {
  return can(usePerson().role, operation);
}
