// Log: the organization's entries, newest first, with filters and pages;
// verifying the hash chains; erasing an entry's payload (PDPA).
import { formatISO } from "date-fns";
import { useState } from "preact/hooks";
import type { operations } from "../api";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad, usePages } from "../ui";

type Filters = NonNullable<operations["audit-list-entries"]["parameters"]["query"]>;
type Entry = Schemas["Record"];
type Verdict = Schemas["Verdict"];

const pageSize = 50;

interface Draft {
  project: string;
  agent: string;
  action: string;
  outcome: string;
  refused: boolean;
  from: string;
  to: string;
}

const blank: Draft = { project: "", agent: "", action: "", outcome: "", refused: false, from: "", to: "" };

/** filters turns the form into the query; datetime-local values gain the browser's offset. */
function filters(d: Draft): Filters {
  const at = (v: string) => (v ? formatISO(new Date(v)) : undefined);
  return {
    project: d.project || undefined,
    agent: d.agent.trim() || undefined,
    action: d.action.trim() || undefined,
    outcome: d.outcome.trim() || undefined,
    refused: d.refused || undefined,
    from: at(d.from),
    to: at(d.to),
    limit: pageSize,
  };
}

export function Log() {
  const projects = useLoad(() => api.GET("/admin/api/projects"), []);
  const [draft, setDraft] = useState<Draft>(blank);
  const [applied, setApplied] = useState<Filters>(filters(blank));
  const first = useLoad(() => api.GET("/admin/api/entries", { params: { query: applied } }), [JSON.stringify(applied)]);
  const [older, setOlder] = useState<Entry[]>([]);
  const [more, setMore] = useState<boolean | undefined>();
  const [forFirst, setForFirst] = useState(first.data);
  const [run, { busy, error }] = useAction();
  if (forFirst !== first.data) {
    // New filters or a reload start paging anew.
    setForFirst(first.data);
    setOlder([]);
    setMore(undefined);
  }
  const entries = [...(first.data?.entries ?? []), ...older];
  const hasMore = more ?? (first.data?.entries.length ?? 0) === pageSize;
  async function loadMore() {
    const last = entries[entries.length - 1];
    if (!last) return;
    await run(async () => {
      const r = await api.GET("/admin/api/entries", { params: { query: { ...applied, before: last.id } } });
      if (r.data) {
        const page = r.data.entries;
        setOlder((o) => [...o, ...page]);
        setMore(page.length === pageSize);
      }
      return r;
    });
  }
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  return (
    <section>
      <h1>Log</h1>
      <Verify />
      <h2>Entries</h2>
      <form
        class="filters"
        aria-label="Filter entries"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(filters(draft));
        }}
      >
        <label>
          Project
          <select value={draft.project} onChange={(e) => set({ project: e.currentTarget.value })}>
            <option value="">Any</option>
            {(projects.data?.projects ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <input type="text" value={draft.agent} onInput={(e) => set({ agent: e.currentTarget.value })} />
        </label>
        <label>
          Action
          <input type="text" placeholder="pact_post" value={draft.action} onInput={(e) => set({ action: e.currentTarget.value })} />
        </label>
        <label>
          Outcome
          <input type="text" placeholder="ok" value={draft.outcome} onInput={(e) => set({ outcome: e.currentTarget.value })} />
        </label>
        <label>
          From
          <input type="datetime-local" value={draft.from} onInput={(e) => set({ from: e.currentTarget.value })} />
        </label>
        <label>
          To
          <input type="datetime-local" value={draft.to} onInput={(e) => set({ to: e.currentTarget.value })} />
        </label>
        <label class="check">
          <input type="checkbox" checked={draft.refused} onChange={(e) => set({ refused: e.currentTarget.checked })} />
          Refusals only
        </label>
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft(blank);
              setApplied(filters(blank));
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <Status loaded={first} what="the log" />
      {first.data && entries.length === 0 && <p class="empty">No entries match.</p>}
      <ol class="rows entries">
        {entries.map((e) => (
          <li key={e.id}>
            <EntryRow e={e} onErased={first.reload} />
          </li>
        ))}
      </ol>
      {hasMore && (
        <button type="button" disabled={busy} onClick={loadMore}>
          Show older entries
        </button>
      )}
      <Alert text={error} />
    </section>
  );
}

function EntryRow({ e, onErased }: { e: Entry; onErased: () => void }) {
  const canErase = useCan("audit-erase-entry");
  const [run, { busy, error }] = useAction();
  const [done, setDone] = useState("");
  return (
    <>
      <span>
        <strong>#{e.id}</strong> <code>{e.action}</code> by {e.actor} <span class={e.outcome === "ok" ? "" : "refused"}>{e.outcome}</span>
      </span>
      <span class="meta">
        <Ago at={e.at} /> · {e.chain_key}
        {e.project_id && <> · {e.project_id}</>}
        {e.task_id && (
          <>
            {" "}
            · <a href={`/console/tasks/${e.task_id}`}>task</a>
          </>
        )}
      </span>
      {e.payload_erased ? (
        <span class="meta">Payload erased.</span>
      ) : (
        e.payload !== null &&
        e.payload !== undefined && (
          <details>
            <summary>Payload of #{e.id}</summary>
            <pre class="body">{JSON.stringify(e.payload, null, 2)}</pre>
          </details>
        )
      )}
      {canErase && !e.payload_erased && (
        <div class="actions">
          <ConfirmButton
            label={`Erase payload of #${e.id}`}
            op="audit-erase-entry"
            danger
            disabled={busy}
            title={`Erase the payload of entry #${e.id}?`}
            effect={
              <p>
                What {e.actor} sent with <code>{e.action}</code> is erased for good. The entry and its hash stay, so the chain still verifies.
              </p>
            }
            confirm="Erase payload"
            onConfirm={async () => {
              let said = "";
              const ok = await run(async () => {
                const r = await api.POST("/admin/api/entries/{entry_id}/erase", { params: { path: { entry_id: e.id } } });
                if (r.data) said = r.data.erased ? `Erased the payload of #${e.id}.` : `The payload of #${e.id} was erased already.`;
                return r;
              });
              if (ok) {
                setDone(said);
                onErased();
              }
            }}
          />
        </div>
      )}
      <p class="notice" role="status">
        {done}
      </p>
      <Alert text={error} />
    </>
  );
}

/**
 * Verify checks the organization's hash chains one call per chain, so the
 * bar shows how far it has got (entries checked of the log's size), then
 * each chain's verdict.
 */
function Verify() {
  const allowed = useCan("audit-verify-log");
  const [verdicts, setVerdicts] = useState<Verdict[]>();
  const [progress, setProgress] = useState<{ chains: number; of: number; entries: number; total: number }>();
  const [run, { busy, error }] = useAction();
  const [shown, pager, setPage] = usePages(verdicts ?? [], 20);
  if (!allowed) return null;
  const broken = (verdicts ?? []).filter((v) => !v.ok);
  async function verifyAll() {
    setVerdicts(undefined);
    setPage(0);
    const chains = await api.GET("/admin/api/log/chains");
    if (!chains.data) return chains;
    const list = chains.data.chains;
    const total = list.reduce((n, c) => n + c.entries, 0);
    const done: Verdict[] = [];
    let entries = 0;
    setProgress({ chains: 0, of: list.length, entries, total });
    for (const c of list) {
      const r = await api.GET("/admin/api/log/verify", { params: { query: { chain: c.chain_key } } });
      if (!r.data) return r;
      done.push(...r.data.verdicts);
      entries += c.entries;
      setProgress({ chains: done.length, of: list.length, entries, total });
    }
    setVerdicts(done);
    return chains;
  }
  return (
    <div class="zone" aria-busy={busy}>
      <h2>Verify the log</h2>
      <p class="meta">Recomputes every hash chain of the organization and says where one breaks.</p>
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => run(verifyAll)}>
          Verify
        </button>
      </div>
      {busy && progress && (
        <p>
          <progress aria-label="Entries verified" max={progress.total || 1} value={progress.entries} /> Verified{" "}
          {progress.chains} of {progress.of} chains ({progress.entries.toLocaleString()} of{" "}
          {progress.total.toLocaleString()} entries)…
        </p>
      )}
      <Alert text={error} />
      {verdicts && (
        <>
          <p role="status">
            <meter min={0} max={verdicts.length || 1} value={verdicts.length - broken.length} aria-label="Chains intact" />{" "}
            {broken.length === 0
              ? `All ${verdicts.length} chains are intact.`
              : `${broken.length} of ${verdicts.length} chains are broken.`}
          </p>
          <ul class="rows">
            {shown.map((v) => (
              <li key={v.chain_key}>
                <span>
                  <code>{v.chain_key}</code> {v.ok ? <span class="s-completed">intact</span> : <strong class="refused">broken</strong>}
                </span>
                <span class="meta">
                  {v.checked} entries checked
                  {!v.ok && v.broken_at !== null && <> · breaks at #{v.broken_at}</>}
                  {v.reason && <> · {v.reason}</>}
                </span>
              </li>
            ))}
          </ul>
          {pager}
        </>
      )}
    </div>
  );
}
