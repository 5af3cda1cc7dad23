// Mandates: what each agent may do, with its usage against its limits as
// bars, and revocation that first shows what it would stop.
import { isPast } from "date-fns";
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad, usePages } from "../ui";

type Mandate = Schemas["MandateView"];
type Impact = Schemas["Impact"];

const number = new Intl.NumberFormat();

export function MandateList() {
  const [all, setAll] = useState(false);
  const mandates = useLoad(() => api.GET("/admin/api/mandates", { params: { query: { all } } }), [all]);
  const [shown, pager, setPage] = usePages(mandates.data?.mandates ?? [], 20);
  const [done, setDone] = useState("");
  return (
    <section>
      <h1>Mandates</h1>
      <label class="check">
        <input
          type="checkbox"
          checked={all}
          onChange={(e) => {
            setAll(e.currentTarget.checked);
            setPage(0);
          }}
        />
        Show revoked and expired mandates too
      </label>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={mandates} what="mandates" />
      {mandates.data && mandates.data.mandates.length === 0 && <p class="empty">{all ? "No mandates." : "No live mandates."}</p>}
      <ul class="cards">
        {shown.map((m) => (
          <li key={m.id}>
            <MandateCard
              m={m}
              onRevoked={(what) => {
                setDone(what);
                mandates.reload();
              }}
            />
          </li>
        ))}
      </ul>
      {pager}
    </section>
  );
}

function MandateCard({ m, onRevoked }: { m: Mandate; onRevoked: (what: string) => void }) {
  const expired = isPast(new Date(m.expires_at));
  const keys = Object.keys(m.limits).sort();
  return (
    <article class="card">
      <p class="kind">{m.parent_id ? `Delegated mandate · depth ${m.depth}` : "Root mandate"}</p>
      <h3>{m.holder}</h3>
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
        issued by {m.issuer} ({m.issuer_kind}) <Ago at={m.created_at} /> · {expired ? "expired" : "expires"} <Ago at={m.expires_at} /> ·{" "}
        {m.delegations_left} delegations left
        {m.format !== "pact" && <> · imported from {m.format}</>}
      </p>
      {m.task && (
        <p class="meta">
          For task <a href={`/console/tasks/${m.task.id}`}>{m.task.title}</a> ({m.task.status})
        </p>
      )}
      <p class="meta">
        Scope: {m.scope.length ? m.scope.map((s) => <code key={s}>{s} </code>) : "none"}
      </p>
      {keys.length > 0 ? (
        <ul class="usage">
          {keys.map((k) => (
            <UsageBar key={k} name={k} used={m.usage[k] ?? 0} limit={m.limits[k] ?? 0} />
          ))}
        </ul>
      ) : (
        <p class="meta">No limits.</p>
      )}
      {!m.revoked_at && <Revoke m={m} onRevoked={onRevoked} />}
    </article>
  );
}

/** UsageBar shows one limit's use as a meter, with the numbers in text. */
function UsageBar({ name, used, limit }: { name: string; used: number; limit: number }) {
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
 * Revoke asks the server what revoking would stop (the impact operation
 * changes nothing), shows it, and only then offers the revocation.
 */
function Revoke({ m, onRevoked }: { m: Mandate; onRevoked: (what: string) => void }) {
  const canSee = useCan("board-get-mandate-impact");
  const canRevoke = useCan("board-revoke-mandate");
  const [impact, setImpact] = useState<Impact>();
  const [run, { busy, error }] = useAction();
  if (!canRevoke || !canSee) return null;
  async function preview() {
    await run(async () => {
      const r = await api.GET("/admin/api/mandates/{mandate_id}/impact", { params: { path: { mandate_id: m.id } } });
      if (r.data) setImpact(r.data);
      return r;
    });
  }
  if (!impact)
    return (
      <div class="actions">
        <button type="button" disabled={busy} onClick={preview}>
          Revoke…
        </button>
        <Alert text={error} />
      </div>
    );
  const effect = <ImpactText m={m} impact={impact} />;
  return (
    <div class="impact" role="region" aria-label={`What revoking ${m.holder}'s mandate would stop`}>
      <h4>If you revoke this mandate</h4>
      {effect}
      <div class="actions">
        <ConfirmButton
          label="Revoke mandate"
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
            if (ok) onRevoked(said);
          }}
        />
        <button type="button" onClick={() => setImpact(undefined)}>
          Keep it
        </button>
      </div>
      <Alert text={error} />
    </div>
  );
}

function ImpactText({ m, impact }: { m: Mandate; impact: Impact }) {
  return (
    <>
      <p>
        {impact.agents.length > 0 ? (
          <>
            These agents lose the authority it gives: <strong>{impact.agents.join(", ")}</strong>.
          </>
        ) : (
          <>{m.holder} loses the authority it gives.</>
        )}
      </p>
      <p>
        {impact.descendants.length === 0
          ? "No mandate was delegated under it."
          : `${impact.descendants.length} mandates delegated under it are revoked too: ${impact.descendants.map((d) => d.holder).join(", ")}.`}
      </p>
      {impact.tasks.length === 0 ? (
        <p>No open task is canceled.</p>
      ) : (
        <>
          <p>{impact.tasks.length} open tasks are canceled:</p>
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
