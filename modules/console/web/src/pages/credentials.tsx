// Credentials: the trusted roots whose credentials the board imports, a
// credential imported for an agent, and what was exported for each agent
// (issue 31, section 2, "Credentials").
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad } from "../ui";

type Root = Schemas["TrustedRoot"];
type Mandate = Schemas["MandateView"];

// importedUnder is how many of mandates were imported under root and
// still answer to it: live, and made since it was last trusted. Revoking
// the root stops them (the board checks every imported link against a live
// trusted root), though they are not marked revoked.
function importedUnder(root: Root, mandates: Mandate[]): number {
  const since = Date.parse(root.active_since);
  const now = Date.now();
  return mandates.filter(
    (m) =>
      m.issuer_principal === root.principal &&
      !m.revoked_at &&
      Date.parse(m.created_at) >= since &&
      Date.parse(m.expires_at) > now,
  ).length;
}

function mandatesText(n: number): string {
  return n === 1 ? "1 mandate" : `${n} mandates`;
}

export function Credentials() {
  const roots = useLoad(() => api.GET("/admin/api/trusted-roots"), []);
  const status = useLoad(() => api.GET("/admin/api/credentials/status"), []);
  const mandates = useLoad(() => api.GET("/admin/api/mandates"), []);
  const [done, setDone] = useState("");
  const changed = (what: string) => {
    setDone(what);
    roots.reload();
    mandates.reload();
  };
  // Per agent: the formats its live mandates were exported as.
  const exported = new Map<string, Set<string>>();
  for (const m of mandates.data?.mandates ?? []) {
    const s = exported.get(m.holder) ?? new Set<string>();
    if (m.exported_as) s.add(m.exported_as);
    exported.set(m.holder, s);
  }
  return (
    <section>
      <h1>Credentials</h1>
      <p class="notice" role="status">
        {done}
      </p>
      <h2>Trusted roots</h2>
      <p class="muted">Keys whose credentials the board accepts on import, each standing for a person of the organization.</p>
      <Status loaded={roots} what="trusted roots" />
      {roots.data && roots.data.trusted_roots.length === 0 && <p class="empty">No trusted roots.</p>}
      <ul class="cards">
        {roots.data?.trusted_roots.map((r) => (
          <li key={r.principal}>
            <RootCard r={r} imported={importedUnder(r, mandates.data?.mandates ?? [])} onRevoked={changed} />
          </li>
        ))}
      </ul>
      <AddRoot onAdded={changed} />

      <h2>Import a credential</h2>
      <ImportCredential onImported={changed} />

      <h2>Export</h2>
      <Status loaded={status} what="the export status" />
      {status.data && (
        <>
          <p>
            Credentials are exported as{" "}
            <strong>{status.data.export_format ?? "nothing: PACT_EXPORT_FORMAT is unset"}</strong>.
          </p>
          <ul class="rows">
            {status.data.formats.map((f) => (
              <li key={f.format}>
                <span>
                  <code>{f.format}</code>: revocation list version {f.version}, {f.revoked_count} revoked ids, published at{" "}
                  <code>{f.published_path}</code>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Per agent</h3>
      <Status loaded={mandates} what="mandates" />
      <div class="table">
        <table class="exports">
          <caption class="sr-only">What each agent's live mandates were exported as</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Exported as</th>
            </tr>
          </thead>
          <tbody>
            {[...exported.entries()]
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([agent, formats]) => (
                <tr key={agent} data-agent={agent}>
                  <th scope="row">{agent}</th>
                  <td>{formats.size ? [...formats].sort().join(", ") : "not exported"}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function RootCard({ r, imported, onRevoked }: { r: Root; imported: number; onRevoked: (what: string) => void }) {
  const canRevoke = useCan("people-revoke-trusted-root");
  const [run, { busy, error }] = useAction();
  const name = r.label ? `${r.label} (${r.human})` : r.human;
  return (
    <article class="card">
      <h3>{name}</h3>
      <p class="meta">
        <code>{r.principal}</code>
      </p>
      <p class="meta">
        {r.revoked_at ? (
          <span class="badge refused">
            Revoked <Ago at={r.revoked_at} />
          </span>
        ) : (
          <span class="badge">Trusted</span>
        )}{" "}
        added by {r.created_by} <Ago at={r.created_at} />, counts from <Ago at={r.active_since} />
      </p>
      {!r.revoked_at && (
        <p class="meta">{imported ? `${mandatesText(imported)} imported under it.` : "No mandate imported under it."}</p>
      )}
      {canRevoke && !r.revoked_at && (
        <div class="actions">
          <ConfirmButton
            label="Revoke key"
            op="people-revoke-trusted-root"
            danger
            disabled={busy}
            title={`Stop trusting ${name}?`}
            effect={
              <p>
                The board accepts no new credential issued under this key
                {imported === 1 && ", and the mandate imported under it stops working: its holder is refused"}
                {imported > 1 && `, and the ${imported} mandates imported under it stop working: their holders are refused`}.
                Adding the key again trusts it from then on only.
              </p>
            }
            confirm="Revoke key"
            onConfirm={async () => {
              let said = "";
              const ok = await run(async () => {
                const res = await api.DELETE("/admin/api/trusted-roots/{principal}", { params: { path: { principal: r.principal } } });
                // res.data.revoked counts trusted roots, not mandates.
                if (res.data)
                  said = `Stopped trusting ${name}.${imported ? ` ${mandatesText(imported)} imported under it ${imported === 1 ? "no longer acts" : "no longer act"}.` : ""}`;
                return res;
              });
              if (ok) onRevoked(said);
            }}
          />
        </div>
      )}
      <Alert text={error} />
    </article>
  );
}

function AddRoot({ onAdded }: { onAdded: (what: string) => void }) {
  const canAdd = useCan("people-add-trusted-root");
  const [key, setKey] = useState("");
  const [human, setHuman] = useState("");
  const [label, setLabel] = useState("");
  const [run, { busy, error }] = useAction();
  if (!canAdd) return null;
  return (
    <form
      class="card"
      aria-label="Add a trusted root"
      onSubmit={async (e) => {
        e.preventDefault();
        let said = "";
        const ok = await run(async () => {
          const r = await api.POST("/admin/api/trusted-roots", {
            body: { public_key: key.trim(), human: human.trim(), label: label.trim() || undefined },
          });
          if (r.data) said = `${r.data.reactivated ? "Trusting again" : "Now trusting"} ${r.data.label ?? r.data.human}'s key.`;
          return r;
        });
        if (ok) {
          setKey("");
          setLabel("");
          onAdded(said);
        }
      }}
    >
      <h3>Add a trusted root</h3>
      <label>
        Public key
        <input type="text" value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="base64url of the 32-byte Ed25519 key" />
      </label>
      <label>
        Person
        <input type="text" value={human} onInput={(e) => setHuman(e.currentTarget.value)} placeholder="ana" />
      </label>
      <label>
        Label
        <input type="text" value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" class="primary" data-op="people-add-trusted-root" disabled={busy}>
          Add key
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}

function ImportCredential({ onImported }: { onImported: (what: string) => void }) {
  const canImport = useCan("credentials-import");
  const [agent, setAgent] = useState("");
  const [credential, setCredential] = useState("");
  const [run, { busy, error }] = useAction();
  if (!canImport) return <p class="muted">An approver imports credentials.</p>;
  return (
    <form
      class="card"
      aria-label="Import a credential"
      onSubmit={async (e) => {
        e.preventDefault();
        let said = "";
        const ok = await run(async () => {
          const r = await api.POST("/admin/api/agents/{agent_id}/credentials", {
            params: { path: { agent_id: agent.trim() } },
            body: { format: "tenuo", credential: credential.trim() },
          });
          if (r.data) said = `Imported: ${agent.trim()} holds the root mandate ${r.data.mandate_id}.`;
          return r;
        });
        if (ok) {
          setCredential("");
          onImported(said);
        }
      }}
    >
      <p class="meta">A Tenuo warrant stack issued under a trusted root becomes a root mandate of the agent.</p>
      <label>
        Agent
        <input type="text" value={agent} onInput={(e) => setAgent(e.currentTarget.value)} placeholder="code-web" />
      </label>
      <label>
        Credential
        <textarea rows={3} value={credential} onInput={(e) => setCredential(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" class="primary" data-op="credentials-import" disabled={busy}>
          Import credential
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}
