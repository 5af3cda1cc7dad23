// Mandates as a tree: from each person down through every delegated link
// to the agents (issue 31, "Pictures"). Each node shows its usage against
// its limits as bars; before a revocation (or a replacement that revokes)
// the subtree it would take down, as the impact operation reports it, is
// highlighted and counted. People issue root mandates and replace them here.
import { isPast } from "date-fns";
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad } from "../ui";

type Mandate = Schemas["MandateView"];
type Impact = Schemas["Impact"];

const number = new Intl.NumberFormat();

export interface MandateNode {
  m: Mandate;
  children: MandateNode[];
}

/**
 * mandateForest groups mandates by the person who issued each root, each
 * root with its delegated links below it. A mandate whose parent is not in
 * the list (revoked or expired, while only live ones are listed) heads a
 * group of its own, under its issuer.
 */
export function mandateForest(list: Mandate[]): { issuer: string; kind: string; roots: MandateNode[] }[] {
  const nodes = new Map<string, MandateNode>(list.map((m) => [m.id, { m, children: [] }]));
  const groups = new Map<string, { issuer: string; kind: string; roots: MandateNode[] }>();
  for (const n of nodes.values()) {
    const parent = n.m.parent_id ? nodes.get(n.m.parent_id) : undefined;
    if (parent) {
      parent.children.push(n);
      continue;
    }
    const key = `${n.m.issuer_kind}:${n.m.issuer}`;
    const g = groups.get(key) ?? { issuer: n.m.issuer, kind: n.m.issuer_kind, roots: [] };
    g.roots.push(n);
    groups.set(key, g);
  }
  const byHolder = (a: MandateNode, b: MandateNode) =>
    a.m.holder < b.m.holder ? -1 : a.m.holder > b.m.holder ? 1 : a.m.created_at < b.m.created_at ? -1 : 1;
  for (const n of nodes.values()) n.children.sort(byHolder);
  const out = [...groups.values()];
  for (const g of out) g.roots.sort(byHolder);
  return out.sort((a, b) => (a.kind !== b.kind ? (a.kind === "human" ? -1 : 1) : a.issuer < b.issuer ? -1 : 1));
}

/** A revocation being previewed: the mandate and what it would take down. */
interface Preview {
  id: string;
  impact: Impact;
}

export function MandateList() {
  const [all, setAll] = useState(false);
  const mandates = useLoad(() => api.GET("/admin/api/mandates", { params: { query: { all } } }), [all]);
  const [done, setDone] = useState("");
  const [preview, setPreview] = useState<Preview>();
  const forest = mandateForest(mandates.data?.mandates ?? []);
  const doomed = new Set(preview ? [preview.id, ...preview.impact.descendants.map((d) => d.id)] : []);
  const changed = (what: string) => {
    setDone(what);
    setPreview(undefined);
    mandates.reload();
  };
  return (
    <section>
      <h1>Mandates</h1>
      <p class="muted">
        Each person's root mandates, with every mandate delegated under them down to the agents that hold it. Bars show what
        each has used of its limits.
      </p>
      <IssueMandate onIssued={changed} />
      <label class="check">
        <input
          type="checkbox"
          checked={all}
          onChange={(e) => {
            setAll(e.currentTarget.checked);
            setPreview(undefined);
          }}
        />
        Show revoked and expired mandates too
      </label>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={mandates} what="mandates" />
      {mandates.data && mandates.data.mandates.length === 0 && <p class="empty">{all ? "No mandates." : "No live mandates."}</p>}
      {forest.map((g) => (
        <section class="tree-group" key={`${g.kind}:${g.issuer}`} aria-label={`Mandates issued by ${g.issuer}`}>
          <h2>
            {g.kind === "human" ? "Person" : "Delegated by agent"} <span class="holder">{g.issuer}</span>
          </h2>
          <ul class="tree">
            {g.roots.map((n) => (
              <TreeNode key={n.m.id} n={n} doomed={doomed} preview={preview} setPreview={setPreview} onChanged={changed} />
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}

function TreeNode(props: {
  n: MandateNode;
  doomed: Set<string>;
  preview?: Preview;
  setPreview: (p?: Preview) => void;
  onChanged: (what: string) => void;
}) {
  const { n, doomed } = props;
  const m = n.m;
  const down = doomed.has(m.id);
  return (
    <li>
      <article class={down ? "node doomed" : "node"} aria-label={`${m.holder}, ${m.parent_id ? "delegated" : "root"} mandate`}>
        <MandateBody m={m} down={down} />
        {!m.revoked_at && !isPast(new Date(m.expires_at)) && <NodeActions {...props} />}
      </article>
      {n.children.length > 0 && (
        <ul class="tree">
          {n.children.map((c) => (
            <TreeNode key={c.m.id} {...props} n={c} />
          ))}
        </ul>
      )}
    </li>
  );
}

function MandateBody({ m, down }: { m: Mandate; down: boolean }) {
  const expired = isPast(new Date(m.expires_at));
  const keys = Object.keys(m.limits).sort();
  return (
    <>
      <h3 class="holder">{m.holder}</h3>
      {down && <p class="badge doomed-badge">Would be revoked</p>}
      <p class="kind">
        {m.parent_id ? `Delegated by ${m.issuer} · depth ${m.depth}` : `Root mandate from ${m.issuer}`}
      </p>
      <p class="meta">
        {m.revoked_at ? (
          <span class="badge refused">
            Revoked <Ago at={m.revoked_at} />
          </span>
        ) : expired ? (
          <span class="badge warn">Expired</span>
        ) : (
          <span class="badge">Live</span>
        )}{" "}
        {expired ? "expired" : "expires"} <Ago at={m.expires_at} /> · {m.delegations_left} delegations left
        {m.format !== "pact" && <> · imported from {m.format}</>}
      </p>
      {m.task && (
        <p class="meta">
          For task <a href={`/console/tasks/${m.task.id}`}>{m.task.title}</a> ({m.task.status})
        </p>
      )}
      <p class="meta">Scope: {m.scope.length ? m.scope.map((s) => <code key={s}>{s} </code>) : "none"}</p>
      {keys.length > 0 ? (
        <ul class="usage">
          {keys.map((k) => (
            <UsageBar key={k} name={k} used={m.usage[k] ?? 0} limit={m.limits[k] ?? 0} />
          ))}
        </ul>
      ) : (
        <p class="meta">No limits.</p>
      )}
    </>
  );
}

/** UsageBar shows one limit's use as a meter, with the numbers in text. */
export function UsageBar({ name, used, limit }: { name: string; used: number; limit: number }) {
  const text = `${number.format(used)} of ${number.format(limit)} used`;
  const high = limit * 0.8;
  return (
    <li>
      <span class="usage-name">
        <code>{name}</code> <span class="meta">{text}</span>
      </span>
      <meter min={0} max={limit || 1} low={high} high={high} optimum={0} value={Math.min(used, limit)} aria-label={`${name}: ${text}`}>
        {text}
      </meter>
    </li>
  );
}

/**
 * NodeActions offers Revoke… on every live node and Replace… on a live
 * root. Revoke first asks the server what revoking would take down (the
 * impact operation changes nothing): the tree highlights exactly that
 * subtree and counts it, and only then offers the revocation.
 */
function NodeActions({ n, preview, setPreview, onChanged }: {
  n: MandateNode;
  preview?: Preview;
  setPreview: (p?: Preview) => void;
  onChanged: (what: string) => void;
}) {
  const m = n.m;
  const canSee = useCan("board-get-mandate-impact");
  const canRevoke = useCan("board-revoke-mandate");
  const canReplace = useCan("board-replace-mandate");
  const [replacing, setReplacing] = useState(false);
  const [run, { busy, error }] = useAction();
  if (!canSee || (!canRevoke && !canReplace)) return null;
  const mine = preview?.id === m.id ? preview : undefined;
  async function ask() {
    await run(async () => {
      const r = await api.GET("/admin/api/mandates/{mandate_id}/impact", { params: { path: { mandate_id: m.id } } });
      if (r.data) setPreview({ id: m.id, impact: r.data });
      return r;
    });
  }
  if (replacing)
    return <ReplaceMandate m={m} preview={mine} ask={ask} clear={() => setPreview(undefined)} onDone={(what) => {
      setReplacing(false);
      onChanged(what);
    }} onCancel={() => {
      setReplacing(false);
      setPreview(undefined);
    }} />;
  if (!mine)
    return (
      <div class="actions">
        {canRevoke && (
          <button type="button" data-op="board-revoke-mandate" disabled={busy} onClick={ask}>
            Revoke…
          </button>
        )}
        {canReplace && !m.parent_id && (
          <button type="button" data-op="board-replace-mandate" onClick={() => setReplacing(true)}>
            Replace…
          </button>
        )}
        <Alert text={error} />
      </div>
    );
  const effect = <ImpactText m={m} impact={mine.impact} />;
  return (
    <div class="impact" role="region" aria-label={`What revoking ${m.holder}'s mandate would take down`}>
      <h4>If you revoke this mandate</h4>
      {effect}
      <div class="actions">
        <ConfirmButton
          label="Revoke mandate"
          op="board-revoke-mandate"
          danger
          disabled={busy}
          title={`Revoke ${m.holder}'s mandate?`}
          effect={
            <>
              {effect}
              <p>This cannot be undone.</p>
            </>
          }
          confirm="Revoke"
          onConfirm={async () => {
            let said = "";
            const ok = await run(async () => {
              const r = await api.POST("/admin/api/mandates/{mandate_id}/revoke", { params: { path: { mandate_id: m.id } } });
              if (r.data)
                said = `Revoked ${m.holder}'s mandate, ${r.data.descendant_mandates} delegated under it and ${r.data.tasks_stopped} open tasks.`;
              return r;
            });
            if (ok) onChanged(said);
          }}
        />
        <button type="button" onClick={() => setPreview(undefined)}>
          Keep it
        </button>
      </div>
      <Alert text={error} />
    </div>
  );
}

/** ImpactText says what a revocation takes down: the count first. */
function ImpactText({ m, impact }: { m: Mandate; impact: Impact }) {
  const total = 1 + impact.descendants.length;
  return (
    <>
      <p class="doomed-count">
        <strong>
          {total === 1 ? "1 mandate" : `${total} mandates`} would be revoked
        </strong>
        , highlighted in the tree: {m.holder}'s
        {impact.descendants.length > 0 && <> and {impact.descendants.length} delegated under it ({impact.descendants.map((d) => d.holder).join(", ")})</>}.
      </p>
      <p>
        {impact.agents.length > 0 ? (
          <>
            These agents lose the authority it gives: <strong>{impact.agents.join(", ")}</strong>.
          </>
        ) : (
          <>{m.holder} loses the authority it gives.</>
        )}
      </p>
      {impact.tasks.length === 0 ? (
        <p>No open task is canceled.</p>
      ) : (
        <>
          <p>{impact.tasks.length === 1 ? "1 open task is" : `${impact.tasks.length} open tasks are`} canceled:</p>
          <ul>
            {impact.tasks.map((t) => (
              <li key={t.id}>
                {t.title} <span class="meta">({t.status}{t.assignee ? `, ${t.assignee}` : ""})</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** parseLimits reads "cost_usd=10, tokens=5000" into limits. */
export function parseLimits(text: string): Record<string, number> | string {
  const out: Record<string, number> = {};
  for (const part of text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean)) {
    const [k, v, extra] = part.split("=").map((s) => s.trim());
    const n = Number(v);
    if (!k || v === undefined || extra !== undefined || v === "" || !Number.isFinite(n) || n < 0)
      return `"${part}" is not a limit: write key=amount, for example cost_usd=10.`;
    out[k] = n;
  }
  return out;
}

function splitScope(text: string): string[] {
  return text.split(/[,\s]+/).map((s) => s.trim()).filter(Boolean);
}

function limitsText(limits: Record<string, number>): string {
  return Object.keys(limits)
    .sort()
    .map((k) => `${k}=${limits[k]}`)
    .join(", ");
}

/** The fields a root mandate is issued or replaced with. */
function TermFields(props: {
  scope: string;
  setScope: (s: string) => void;
  limits: string;
  setLimits: (s: string) => void;
  days: string;
  setDays: (s: string) => void;
  delegations: string;
  setDelegations: (s: string) => void;
}) {
  return (
    <>
      <label>
        Scope
        <input type="text" value={props.scope} onInput={(e) => props.setScope(e.currentTarget.value)} placeholder="task.work@project:web" />
      </label>
      <p class="meta">action@project:p, separated by commas, within the agent's projects.</p>
      <label>
        Limits
        <input type="text" value={props.limits} onInput={(e) => props.setLimits(e.currentTarget.value)} placeholder="cost_usd=10, tokens=100000" />
      </label>
      <div class="inline">
        <label>
          Term in days
          <input type="number" min={1} max={365} value={props.days} onInput={(e) => props.setDays(e.currentTarget.value)} />
        </label>
        <label>
          Delegation levels
          <input type="number" min={0} max={5} value={props.delegations} onInput={(e) => props.setDelegations(e.currentTarget.value)} />
        </label>
      </div>
    </>
  );
}

/** IssueMandate issues a further root mandate to an agent, from this person. */
function IssueMandate({ onIssued }: { onIssued: (what: string) => void }) {
  const canIssue = useCan("board-issue-mandate");
  const [open, setOpen] = useState(false);
  const agents = useLoad(
    () => (open ? api.GET("/admin/api/agents") : Promise.resolve({ data: { agents: [] }, response: new Response() })),
    [open],
  );
  const [holder, setHolder] = useState("");
  const [scope, setScope] = useState("");
  const [limits, setLimits] = useState("");
  const [days, setDays] = useState("30");
  const [delegations, setDelegations] = useState("1");
  const [run, { busy, error }] = useAction();
  const [problem, setProblem] = useState("");
  if (!canIssue) return null;
  if (!open)
    return (
      <div class="actions">
        <button type="button" data-op="board-issue-mandate" onClick={() => setOpen(true)}>
          Issue a root mandate…
        </button>
      </div>
    );
  const live = (agents.data?.agents ?? []).filter((a) => a.status !== "banned");
  const chosen = live.find((a) => a.id === holder);
  async function issue(e: Event) {
    e.preventDefault();
    const l = parseLimits(limits);
    if (typeof l === "string") return setProblem(l);
    if (!holder) return setProblem("Name the agent that will hold it.");
    setProblem("");
    let id = "";
    const ok = await run(async () => {
      const r = await api.POST("/admin/api/mandates", {
        body: { holder, scope: splitScope(scope), limits: l, days: Number(days) || undefined, delegations: Number(delegations) },
      });
      if (r.data) id = r.data.mandate_id;
      return r;
    });
    if (ok) {
      setOpen(false);
      setScope("");
      setLimits("");
      onIssued(`Issued a root mandate to ${holder} (${id}).`);
    }
  }
  return (
    <form class="card" onSubmit={issue} aria-label="Issue a root mandate">
      <h2>Issue a root mandate</h2>
      <p class="meta">You issue it: it gives the agent authority of its own, beside the mandates it holds already.</p>
      <Status loaded={agents} what="agents" />
      <label>
        Agent
        <input type="text" list="mandate-holders" value={holder} onInput={(e) => setHolder(e.currentTarget.value.trim())} placeholder="code-web" />
      </label>
      <datalist id="mandate-holders">
        {live.map((a) => (
          <option key={a.id} value={a.id} />
        ))}
      </datalist>
      {chosen && <p class="meta">Its projects: {chosen.projects.join(", ") || "none"}.</p>}
      <TermFields {...{ scope, setScope, limits, setLimits, days, setDays, delegations, setDelegations }} />
      <div class="actions">
        <button type="submit" class="primary" data-op="board-issue-mandate" disabled={busy}>
          Issue mandate
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      <Alert text={problem || error} />
    </form>
  );
}

/**
 * ReplaceMandate issues a new root for the holder in place of m. Revoking
 * the old one is a choice; when chosen, its subtree is highlighted and the
 * confirmation says what it takes down.
 */
function ReplaceMandate(props: {
  m: Mandate;
  preview?: Preview;
  ask: () => Promise<void>;
  clear: () => void;
  onDone: (what: string) => void;
  onCancel: () => void;
}) {
  const { m } = props;
  const [scope, setScope] = useState(m.scope.join(", "));
  const [limits, setLimits] = useState(limitsText(m.limits));
  const [days, setDays] = useState("30");
  const [delegations, setDelegations] = useState(String(m.delegations_left));
  const [revoke, setRevoke] = useState(false);
  const [run, { busy, error }] = useAction();
  const [problem, setProblem] = useState("");
  async function replace() {
    const l = parseLimits(limits);
    if (typeof l === "string") return setProblem(l);
    setProblem("");
    let said = "";
    const ok = await run(async () => {
      const r = await api.POST("/admin/api/mandates/{mandate_id}/replace", {
        params: { path: { mandate_id: m.id } },
        body: { scope: splitScope(scope), limits: l, days: Number(days) || undefined, delegations: Number(delegations), revoke },
      });
      if (r.data)
        said = r.data.revoked
          ? `Replaced ${m.holder}'s mandate; the old one, ${r.data.descendant_mandates} delegated under it and ${r.data.tasks_stopped} open tasks were revoked.`
          : `Replaced ${m.holder}'s mandate; the old one runs until it expires.`;
      return r;
    });
    if (ok) props.onDone(said);
  }
  return (
    <form
      class="replace"
      aria-label={`Replace ${m.holder}'s mandate`}
      onSubmit={(e) => {
        e.preventDefault();
        if (!revoke) replace();
      }}
    >
      <h4>Replace {m.holder}'s root mandate</h4>
      <TermFields {...{ scope, setScope, limits, setLimits, days, setDays, delegations, setDelegations }} />
      <label class="check">
        <input
          type="checkbox"
          checked={revoke}
          onChange={(e) => {
            const on = e.currentTarget.checked;
            setRevoke(on);
            if (on) props.ask();
            else props.clear();
          }}
        />
        Revoke the old mandate and everything under it now
      </label>
      {revoke && props.preview && <ImpactText m={m} impact={props.preview.impact} />}
      {!revoke && <p class="meta">The old mandate keeps working until it expires.</p>}
      <div class="actions">
        {revoke ? (
          <ConfirmButton
            label="Replace mandate"
            op="board-replace-mandate"
            danger
            disabled={busy || !props.preview}
            title={`Replace ${m.holder}'s mandate and revoke the old one?`}
            effect={
              <>
                {props.preview && <ImpactText m={m} impact={props.preview.impact} />}
                <p>This cannot be undone.</p>
              </>
            }
            confirm="Replace and revoke"
            onConfirm={replace}
          />
        ) : (
          <button type="submit" class="primary" data-op="board-replace-mandate" disabled={busy}>
            Replace mandate
          </button>
        )}
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      <Alert text={problem || error} />
    </form>
  );
}
