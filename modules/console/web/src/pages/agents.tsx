// Agents: who is online or listening, hiring from a role (the setup code
// and the exact pact-connect command, with a copy button), and per agent
// pause or ban, renew, tokens, keys and preferences.
import { isFuture } from "date-fns";
import { useId, useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan, usePerson } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad, usePages } from "../ui";
import { RemoteCardForm } from "./remotecard";

type Agent = Schemas["Agent"];
type Connect = Schemas["Connect"];

export function AgentList() {
  const agents = useLoad(() => api.GET("/admin/api/agents"), []);
  const canHire = useCan("people-hire-agent");
  const [shown, pager] = usePages(agents.data?.agents ?? [], 20);
  const [done, setDone] = useState("");
  const changed = (what: string) => {
    setDone(what);
    agents.reload();
  };
  return (
    <section>
      <h1>Agents</h1>
      {canHire && <Hire onHired={() => agents.reload()} />}
      <h2>Your organization's agents</h2>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={agents} what="agents" />
      {agents.data && agents.data.agents.length === 0 && <p class="empty">No agents yet.</p>}
      <ul class="cards">
        {shown.map((a) => (
          <li key={a.id}>
            <AgentCard a={a} onDone={changed} />
          </li>
        ))}
      </ul>
      {pager}
    </section>
  );
}

function Presence({ a }: { a: Agent }) {
  if (a.online) return <span class="badge s-completed">Online</span>;
  if (a.listening_until && isFuture(new Date(a.listening_until)))
    return (
      <span class="badge">
        Listening until <Ago at={a.listening_until} />
      </span>
    );
  return <span class="badge">Offline</span>;
}

function AgentCard({ a, onDone }: { a: Agent; onDone: (what: string) => void }) {
  // The controls (and the keys they read) load only once opened.
  const [open, setOpen] = useState(false);
  return (
    <article class="card">
      <p class="kind">
        {a.client}
        {a.role_id && <> · hired as {a.role_id}</>}
      </p>
      <h3>
        {a.id} <Presence a={a} /> {a.status !== "active" && <span class={`badge ${a.status === "banned" ? "refused" : "warn"}`}>{a.status}</span>}
      </h3>
      <p class="meta">
        owner {a.owner} · projects {a.projects.join(", ") || "none"} · last seen <Ago at={a.last_seen} /> · {a.live_tokens} live tokens ·{" "}
        {a.live_mandates} live mandates · {a.keys} keys
        {a.replaced_by && <> · replaced by {a.replaced_by}</>}
      </p>
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Manage {a.id}</summary>
        {open && (
          <>
            <StatusControls a={a} onDone={onDone} />
            <RoleAndProjects a={a} onDone={onDone} />
            <Renew a={a} onDone={onDone} />
            <Tokens a={a} onDone={onDone} />
            {a.client === "a2a-remote" && <RemoteCardForm agent={a.id} />}
            <Keys a={a} onDone={onDone} />
            <Preferences a={a} onDone={onDone} />
          </>
        )}
      </details>
    </article>
  );
}

/** CopyButton puts text on the clipboard and says so. */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [said, setSaid] = useState("");
  return (
    <>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setSaid(`Copied the ${what}.`),
            () => setSaid(`Could not copy; select the ${what} and copy it yourself.`),
          )
        }
      >
        Copy {what}
      </button>
      <span role="status" class="meta">
        {said}
      </span>
    </>
  );
}

function ConnectPanel({ agent, c }: { agent: string; c: Connect }) {
  return (
    <div class="zone connect" role="region" aria-label={`Connect ${agent}`}>
      <h3>Connect {agent}</h3>
      {c.kind === "remote_card" ? (
        <RemoteCardForm agent={agent} />
      ) : c.kind === "setup_code" ? (
        <>
          <p>
            Setup code <code>{c.code}</code>, valid until <Ago at={c.expires_at} />, once. Run this on the agent's machine:
          </p>
          {c.command && (
            <>
              <pre class="body">
                <code>{c.command}</code>
              </pre>
              <div class="actions">
                <CopyButton text={c.command} what="command" />
              </div>
            </>
          )}
        </>
      ) : (
        <>
          <p>Add this connector URL in the Claude app:</p>
          {c.url && (
            <>
              <pre class="body">
                <code>{c.url}</code>
              </pre>
              <div class="actions">
                <CopyButton text={c.url} what="URL" />
              </div>
            </>
          )}
        </>
      )}
    </div>
  );
}

function Hire({ onHired }: { onHired: () => void }) {
  const roles = useLoad(() => api.GET("/admin/api/roles"), []);
  const projects = useLoad(() => api.GET("/admin/api/projects"), []);
  const humans = useLoad(() => api.GET("/admin/api/humans"), []);
  const agents = useLoad(() => api.GET("/admin/api/agents"), []);
  const [role, setRole] = useState("");
  const [project, setProject] = useState("");
  const [id, setId] = useState("");
  const [owner, setOwner] = useState("");
  const [replaces, setReplaces] = useState("");
  const [days, setDays] = useState("");
  const [limits, setLimits] = useState<Record<string, string>>({});
  const [hired, setHired] = useState<{ agent: string; connect: Connect }>();
  const [run, { busy, error }] = useAction();
  const live = (roles.data?.roles ?? []).filter((r) => !r.archived_at);
  const chosen = live.find((r) => r.id === role);
  const replaceable = (agents.data?.agents ?? []).filter((a) => a.status !== "banned" && (!chosen || a.client === chosen.client));
  return (
    <>
      <h2>Hire from a role</h2>
      <Status loaded={roles} what="roles" />
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          // Only the limits a person changed are sent; the others stay the role's.
          const changed: Record<string, number> = {};
          for (const [k, v] of Object.entries(limits)) {
            if (v.trim() !== "" && Number(v) !== chosen?.limits[k]) changed[k] = Number(v);
          }
          const body = {
            role,
            project,
            id: id.trim() || undefined,
            owner: owner || undefined,
            replaces: replaces || undefined,
            days: days.trim() ? Number(days) : undefined,
            limits: Object.keys(changed).length > 0 ? { ...chosen?.limits, ...changed } : undefined,
          };
          await run(async () => {
            const r = await api.POST("/admin/api/agents/hire", { body });
            if (r.data) {
              setHired({ agent: r.data.agent_id, connect: r.data.connect });
              setId("");
              setReplaces("");
              onHired();
              agents.reload();
            }
            return r;
          });
        }}
      >
        <div class="filters">
          <label>
            Role
            <select
              required
              value={role}
              onChange={(e) => {
                setRole(e.currentTarget.value);
                const r = live.find((x) => x.id === e.currentTarget.value);
                setLimits(Object.fromEntries(Object.entries(r?.limits ?? {}).map(([k, v]) => [k, String(v)])));
                setDays("");
              }}
            >
              <option value="">Choose a role</option>
              {live.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name} ({r.client})
                </option>
              ))}
            </select>
          </label>
          <label>
            Project
            <select required value={project} onChange={(e) => setProject(e.currentTarget.value)}>
              <option value="">Choose a project</option>
              {(projects.data?.projects ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                  {p.production ? " (production)" : ""}
                </option>
              ))}
            </select>
          </label>
          <label>
            Agent id (optional)
            <input type="text" placeholder={role && project ? `${role}-${project}` : ""} value={id} onInput={(e) => setId(e.currentTarget.value)} />
          </label>
          <label>
            Owner
            <select value={owner} onChange={(e) => setOwner(e.currentTarget.value)}>
              <option value="">Me</option>
              {(humans.data?.humans ?? [])
                .filter((h) => !h.disabled_at)
                .map((h) => (
                  <option key={h.id} value={h.id}>
                    {h.name} ({h.id})
                  </option>
                ))}
            </select>
          </label>
          <label>
            Replaces
            <select value={replaces} onChange={(e) => setReplaces(e.currentTarget.value)}>
              <option value="">No agent</option>
              {replaceable.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.id}
                </option>
              ))}
            </select>
          </label>
          <label>
            Mandate term in days (optional)
            <input type="number" min="1" step="any" placeholder={chosen ? String(chosen.mandate_days) : ""} value={days} onInput={(e) => setDays(e.currentTarget.value)} />
          </label>
          {Object.keys(limits).map((k) => (
            <label key={k}>
              Limit {k}
              <input type="number" min="0" step="any" required value={limits[k]} onInput={(e) => setLimits({ ...limits, [k]: e.currentTarget.value })} />
            </label>
          ))}
        </div>
        {chosen && <p class="meta">{chosen.description}</p>}
        {replaces && <p class="meta warn">Hiring bans {replaces}: its mandates are revoked and it points at the new agent.</p>}
        <div class="actions">
          <button type="submit" class="primary" data-op="people-hire-agent" disabled={busy}>
            Hire
          </button>
        </div>
      </form>
      <Alert text={error} />
      {hired && (
        <>
          <ConnectPanel agent={hired.agent} c={hired.connect} />
          {hired.connect.kind === "setup_code" && (
            <p class="meta">The setup code is shown this once: the board keeps only its hash. A new one can be made from the agent's Manage.</p>
          )}
          <div class="actions">
            <button type="button" onClick={() => setHired(undefined)}>
              {hired.connect.kind === "setup_code" ? "Done, hide the setup code" : "Done"}
            </button>
          </div>
        </>
      )}
    </>
  );
}

function RoleAndProjects({ a, onDone }: { a: Agent; onDone: (what: string) => void }) {
  const allowed = useCan("people-update-agent");
  const roles = useLoad(() => api.GET("/admin/api/roles"), []);
  const projects = useLoad(() => api.GET("/admin/api/projects"), []);
  const [role, setRole] = useState(a.role_id ?? "");
  const [chosen, setChosen] = useState<string[]>(a.projects);
  const [run, { busy, error }] = useAction();
  // Outside its label, so the select's name is the label alone (inside,
  // it would take in the chosen role's name), and unlike the hire form's.
  const roleField = useId();
  if (!allowed || a.status === "banned") return null;
  const same = role === (a.role_id ?? "") && chosen.length === a.projects.length && chosen.every((p) => a.projects.includes(p));
  const options = (roles.data?.roles ?? []).filter((r) => !r.archived_at && r.client === a.client);
  return (
    <>
      <h4>Role and projects</h4>
      <label for={roleField}>Role of {a.id}</label>
      <select id={roleField} value={role} onChange={(e) => setRole(e.currentTarget.value)}>
        {!a.role_id && <option value="">No role</option>}
        {options.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </select>
      <fieldset>
        <legend>Projects</legend>
        <div class="choices">
          {(projects.data?.projects ?? []).map((p) => (
            <label class="check" key={p.id}>
              <input
                type="checkbox"
                checked={chosen.includes(p.id)}
                onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, p.id] : chosen.filter((x) => x !== p.id))}
              />{" "}
              {p.name}
            </label>
          ))}
        </div>
      </fieldset>
      <div class="actions">
        <ConfirmButton
          label={`Change ${a.id}'s role or projects`}
          op="people-update-agent"
          disabled={busy || same || chosen.length === 0 || !role}
          title={`Change ${a.id}'s role or projects?`}
          effect={
            <p>
              {a.id} gets a new root mandate from {role} over {chosen.join(", ")}, and every root mandate it held before is revoked, with what was
              delegated from them.
            </p>
          }
          confirm="Change"
          onConfirm={async () => {
            const body: { role_id?: string; projects?: string[] } = {};
            if (role !== (a.role_id ?? "")) body.role_id = role;
            if (!(chosen.length === a.projects.length && chosen.every((p) => a.projects.includes(p)))) body.projects = chosen;
            if (await run(() => api.PATCH("/admin/api/agents/{agent_id}", { params: { path: { agent_id: a.id } }, body })))
              onDone(`${a.id} now works as ${role} on ${chosen.join(", ")}.`);
          }}
        />
      </div>
      <Alert text={error} />
    </>
  );
}

function StatusControls({ a, onDone }: { a: Agent; onDone: (what: string) => void }) {
  const allowed = useCan("people-set-agent-status");
  // Banning and undoing a ban need an owner (the operation's own rule,
  // stricter than its least role).
  const owner = usePerson().role === "owner";
  const canSetup = useCan("people-create-setup-code");
  const [connect, setConnect] = useState<Connect>();
  const [run, { busy, error }] = useAction();
  const path = { params: { path: { agent_id: a.id } } };
  const set = async (status: Agent["status"], what: string) => {
    if (await run(() => api.POST("/admin/api/agents/{agent_id}/status", { ...path, body: { status } }))) onDone(what);
  };
  if (!allowed && !canSetup) return null;
  return (
    <>
      <h4>Status</h4>
      <div class="actions">
        {allowed && a.status === "active" && (
          <ConfirmButton
            label="Pause"
            op="people-set-agent-status"
            disabled={busy}
            title={`Pause ${a.id}?`}
            effect={<p>Every call {a.id} makes is refused until you reactivate it. Its mandates stay.</p>}
            confirm="Pause"
            onConfirm={() => set("paused", `${a.id} is paused.`)}
          />
        )}
        {allowed && a.status === "paused" && (
          <button type="button" data-op="people-set-agent-status" disabled={busy} onClick={() => set("active", `${a.id} is active again.`)}>
            Reactivate
          </button>
        )}
        {allowed && owner && a.status !== "banned" && (
          <ConfirmButton
            label="Ban"
            op="people-set-agent-status"
            danger
            disabled={busy}
            title={`Ban ${a.id}?`}
            effect={
              <p>
                {a.id} is refused from now on and every mandate it holds ({a.live_mandates} live) is revoked, with the open tasks under them.
              </p>
            }
            confirm="Ban"
            onConfirm={() => set("banned", `${a.id} is banned.`)}
          />
        )}
        {allowed && owner && a.status === "banned" && (
          <ConfirmButton
            label="Undo the ban"
            op="people-set-agent-status"
            disabled={busy}
            title={`Undo ${a.id}'s ban?`}
            effect={<p>{a.id} may call the board again. Its revoked mandates stay revoked: renew it to give it a new one.</p>}
            confirm="Undo the ban"
            onConfirm={() => set("active", `${a.id}'s ban is undone.`)}
          />
        )}
        {canSetup && a.status !== "banned" && a.client !== "a2a-remote" && (
          <button
            type="button"
            data-op="people-create-setup-code"
            disabled={busy}
            onClick={() =>
              run(async () => {
                const r = await api.POST("/admin/api/agents/{agent_id}/setup-code", path);
                if (r.data) setConnect(r.data);
                return r;
              })
            }
          >
            New setup code
          </button>
        )}
      </div>
      <Alert text={error} />
      {connect && <ConnectPanel agent={a.id} c={connect} />}
    </>
  );
}

function Renew({ a, onDone }: { a: Agent; onDone: (what: string) => void }) {
  const allowed = useCan("people-renew-agent");
  const [run, { busy, error }] = useAction();
  if (!allowed || !a.role_id || a.status === "banned") return null;
  return (
    <>
      <h4>Mandate</h4>
      <div class="actions">
        <button
          type="button"
          data-op="people-renew-agent"
          disabled={busy}
          onClick={async () => {
            let said = "";
            const ok = await run(async () => {
              const r = await api.POST("/admin/api/agents/{agent_id}/renew", { params: { path: { agent_id: a.id } } });
              if (r.data) said = `${a.id} has a fresh root mandate from ${a.role_id}.`;
              return r;
            });
            if (ok) onDone(said);
          }}
        >
          Renew from its role
        </button>
      </div>
      <Alert text={error} />
    </>
  );
}

function Tokens({ a, onDone }: { a: Agent; onDone: (what: string) => void }) {
  const canIssue = useCan("people-issue-agent-token");
  const canRevoke = useCan("people-revoke-agent-tokens");
  const [token, setToken] = useState<Schemas["IssuedToken"]>();
  const [run, { busy, error }] = useAction();
  const path = { params: { path: { agent_id: a.id } } };
  if (!canIssue && !canRevoke) return null;
  return (
    <>
      <h4>Tokens</h4>
      <div class="actions">
        {canIssue && a.status !== "banned" && (
          <button
            type="button"
            data-op="people-issue-agent-token"
            disabled={busy}
            onClick={() =>
              run(async () => {
                const r = await api.POST("/admin/api/agents/{agent_id}/tokens", { ...path, body: {} });
                if (r.data) setToken(r.data);
                return r;
              })
            }
          >
            Issue a token
          </button>
        )}
        {canRevoke && a.live_tokens > 0 && (
          <ConfirmButton
            label="Revoke every token"
            op="people-revoke-agent-tokens"
            danger
            disabled={busy}
            title={`Revoke ${a.id}'s tokens?`}
            effect={<p>All {a.live_tokens} live tokens stop working at once; {a.id} cannot call the board until it is given a new one.</p>}
            confirm="Revoke tokens"
            onConfirm={async () => {
              if (await run(() => api.DELETE("/admin/api/agents/{agent_id}/tokens", path))) onDone(`${a.id}'s tokens are revoked.`);
            }}
          />
        )}
      </div>
      {token && (
        <div class="zone">
          <p>
            The token is shown once; it expires <Ago at={token.expires_at} />.
          </p>
          <pre class="body">
            <code>{token.token}</code>
          </pre>
          <div class="actions">
            <CopyButton text={token.token} what="token" />
          </div>
        </div>
      )}
      <Alert text={error} />
    </>
  );
}

function Keys({ a, onDone }: { a: Agent; onDone: (what: string) => void }) {
  const keys = useLoad(() => api.GET("/admin/api/agents/{agent_id}/keys", { params: { path: { agent_id: a.id } } }), [a.id]);
  const canAdd = useCan("people-add-agent-key");
  const canRevoke = useCan("people-revoke-agent-key");
  const [key, setKey] = useState("");
  const [run, { busy, error }] = useAction();
  const changed = (what: string) => {
    keys.reload();
    onDone(what);
  };
  const list = keys.data?.keys ?? [];
  return (
    <>
      <h4>Keys</h4>
      <Status loaded={keys} what="keys" />
      {keys.data && list.length === 0 && <p class="empty">No keys.</p>}
      <ul class="rows">
        {list.map((k) => (
          <li key={k.kid}>
            <span>
              <code>{k.kid}</code> {k.revoked_at && <span class="badge refused">Revoked</span>}
            </span>
            <span class="meta">
              added by {k.created_by ?? "the agent"} <Ago at={k.created_at} />
            </span>
            {canRevoke && !k.revoked_at && (
              <div class="actions">
                <ConfirmButton
                  label={`Revoke key ${k.kid}`}
                  op="people-revoke-agent-key"
                  danger
                  disabled={busy}
                  title={`Revoke key ${k.kid}?`}
                  effect={<p>Anything {a.id} signs with this key is refused from now on.</p>}
                  confirm="Revoke key"
                  onConfirm={async () => {
                    if (await run(() => api.DELETE("/admin/api/agents/{agent_id}/keys/{kid}", { params: { path: { agent_id: a.id, kid: k.kid } } })))
                      changed(`Key ${k.kid} is revoked.`);
                  }}
                />
              </div>
            )}
          </li>
        ))}
      </ul>
      {canAdd && (a.client === "code" || a.client === "runner") && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await run(() => api.POST("/admin/api/agents/{agent_id}/keys", { params: { path: { agent_id: a.id } }, body: { public_key: key.trim() } }))) {
              setKey("");
              changed(`Added a key to ${a.id}.`);
            }
          }}
        >
          <label>
            Ed25519 public key (base64url)
            <input type="text" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          </label>
          <button type="submit" data-op="people-add-agent-key" disabled={busy}>
            Add key
          </button>
        </form>
      )}
      <Alert text={error} />
    </>
  );
}

function Preferences({ a, onDone }: { a: Agent; onDone: (what: string) => void }) {
  const allowed = useCan("people-set-agent-preferences");
  const [text, setText] = useState(JSON.stringify(a.preferences, null, 2));
  const [bad, setBad] = useState("");
  const [run, { busy, error }] = useAction();
  if (!allowed)
    return (
      <>
        <h4>Preferences</h4>
        <pre class="body">{JSON.stringify(a.preferences, null, 2)}</pre>
      </>
    );
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        let preferences: unknown;
        try {
          preferences = JSON.parse(text);
        } catch {
          return setBad("The preferences must be JSON.");
        }
        if (!preferences || typeof preferences !== "object" || Array.isArray(preferences)) return setBad("The preferences must be a JSON object.");
        setBad("");
        const body = { preferences: preferences as Record<string, unknown> };
        if (await run(() => api.PUT("/admin/api/agents/{agent_id}/preferences", { params: { path: { agent_id: a.id } }, body }))) onDone(`Saved ${a.id}'s preferences.`);
      }}
    >
      <h4>Preferences</h4>
      <label>
        As a JSON object
        <textarea rows={4} maxLength={4000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" data-op="people-set-agent-preferences" disabled={busy}>
          Save preferences
        </button>
      </div>
      <Alert text={bad || error} />
    </form>
  );
}
