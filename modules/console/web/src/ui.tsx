// Small building blocks shared by the pages.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";
import { errorText } from "./client";
import { Ago } from "./time";

export interface Loaded<T> {
  data: T | undefined;
  error: string;
  loading: boolean;
  reload: () => void;
}

/** A call's outcome, as openapi-fetch gives it. */
export interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * useLoad runs an openapi-fetch read when deps change and on reload, and
 * keeps the last data while a new read runs (no flash on live refetches).
 */
export function useLoad<T>(read: () => Promise<Outcome<T>>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState("");
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    read().then(
      (r) => {
        if (!live) return;
        if (r.data !== undefined) {
          setData(r.data);
          setError("");
        } else setError(errorText(r.error, r.response));
        setLoading(false);
      },
      (e: unknown) => {
        if (!live) return;
        setError(errorText(e));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/**
 * useAction runs a write, remembers its error for the page to show, and
 * says whether it succeeded.
 */
export function useAction(): [
  (write: () => Promise<Outcome<unknown>>) => Promise<boolean>,
  { busy: boolean; error: string; clear: () => void },
] {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const run = useCallback(async (write: () => Promise<Outcome<unknown>>) => {
    setBusy(true);
    setError("");
    try {
      const r = await write();
      if (!r.response.ok) {
        setError(errorText(r.error, r.response));
        return false;
      }
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return [run, { busy, error, clear: () => setError("") }];
}

export function Status({ loaded, what }: { loaded: Loaded<unknown>; what: string }) {
  if (loaded.error)
    return (
      <p class="error" role="alert">
        Could not load {what}: {loaded.error}{" "}
        <button type="button" class="link" onClick={loaded.reload}>
          Try again
        </button>
      </p>
    );
  if (loaded.loading && loaded.data === undefined) return <p class="muted">Loading {what}…</p>;
  return null;
}

export function Alert({ text }: { text: string }) {
  return text ? (
    <p class="error" role="alert">
      {text}
    </p>
  ) : null;
}

/**
 * ConfirmButton asks before a destructive action, in a modal dialog that
 * says what the action will do; Escape or Cancel leaves things as they are.
 */
export function ConfirmButton(props: {
  label: string;
  title: string;
  effect: ComponentChildren;
  confirm?: string;
  danger?: boolean;
  disabled?: boolean;
  /** op is the Admin API operation the action calls, marked on the opener as data-op. */
  op?: string;
  onConfirm: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const heading = useId();
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <>
      <button type="button" class={props.danger ? "danger" : ""} data-op={props.op} disabled={props.disabled} onClick={() => setOpen(true)}>
        {props.label}
      </button>
      <dialog ref={dialog} onClose={() => setOpen(false)} aria-labelledby={heading}>
        {open && (
          <form
            method="dialog"
            onSubmit={(e) => {
              e.preventDefault();
              setOpen(false);
              props.onConfirm();
            }}
          >
            <h2 id={heading}>{props.title}</h2>
            <div class="effect">{props.effect}</div>
            <div class="actions">
              <button type="submit" class={props.danger ? "danger" : "primary"}>
                {props.confirm ?? props.label}
              </button>
              <button type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}

/** Pager shows one page of a list held in memory. */
export function usePages<T>(items: T[], size: number): [T[], preact.JSX.Element | null, (p: number) => void] {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages - 1);
  const shown = items.slice(current * size, current * size + size);
  const nav =
    pages > 1 ? (
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
          Previous
        </button>
        <span aria-live="polite">
          Page {current + 1} of {pages}
        </span>
        <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
          Next
        </button>
      </nav>
    ) : null;
  return [shown, nav, setPage];
}

/** A log entry as the tables of a task's trace and a pact's record show it. */
export type Entry = { id: number; at: string; actor: string; action: string; outcome: string };

/** EntryTable lists log entries: when, who, the action and its outcome. */
export function EntryTable({ caption, entries }: { caption: string; entries: Entry[] }) {
  return (
    <div class="table">
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <td>
                <Ago at={e.at} />
              </td>
              <td>{e.actor}</td>
              <td>
                <code>{e.action}</code>
              </td>
              <td class={e.outcome === "ok" ? "" : "refused"}>{e.outcome}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
