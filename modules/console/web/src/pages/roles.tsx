// Roles: what agents are hired from. Each role's settings, runner settings
// included: a secret one (modules/people/rolesecrets.go, secretSetting) is
// shown only as set or unset, and saving keeps it unless a new value is
// typed. A new role, editing one, and archiving (hires no one from then on).
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad } from "../ui";

type AgentRole = Schemas["AgentRole"];
type SaveRole = Schemas["SaveRoleInBody"];
type Client = SaveRole["client"];

const clients: Client[] = ["code", "runner", "chat", "cowork", "design", "gemini", "a2a", "a2a-remote"];

// The settings the board keeps sealed, as modules/people/rolesecrets.go
// names them; the Admin API reads each back as redacted when it is set.
const secretSetting = /^(DATABASE_URL|([A-Z0-9]+_)*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIALS?))$/;
const redacted = "[REDACTED]";

/** isSecret tells whether a role setting is one the board keeps sealed. */
export function isSecret(key: string, value: string): boolean {
  return value === redacted || secretSetting.test(key);
}

export function RoleList() {
  const roles = useLoad(() => api.GET("/admin/api/roles"), []);
  const canSave = useCan("people-save-role");
  const [done, setDone] = useState("");
  const changed = (what: string) => {
    setDone(what);
    roles.reload();
  };
  const list = roles.data?.roles ?? [];
  return (
    <section>
      <h1>Roles</h1>
      <p class="muted">Agents are hired from a role: its actions, limits, mandate term and settings.</p>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={roles} what="roles" />
      {roles.data && list.length === 0 && <p class="empty">No roles yet.</p>}
      <ul class="cards">
        {list.map((r) => (
          <li key={r.id}>
            <RoleCard r={r} onDone={changed} />
          </li>
        ))}
      </ul>
      {canSave && (
        <Folded summary="New role">
          <RoleForm onDone={changed} />
        </Folded>
      )}
    </section>
  );
}

function RoleCard({ r, onDone }: { r: AgentRole; onDone: (what: string) => void }) {
  const canSave = useCan("people-save-role");
  const canArchive = useCan("people-archive-role");
  const [run, { busy, error }] = useAction();
  const settings = Object.entries(r.settings);
  return (
    <article class="card">
      <p class="kind">{r.client}</p>
      <h3>
        {r.name} {r.archived_at && <span class="badge warn">Archived</span>}
      </h3>
      <p class="meta">
        {r.id} · updated <Ago at={r.updated_at} />
        {r.updated_by && <> by {r.updated_by}</>}
      </p>
      {r.description && <p>{r.description}</p>}
      <dl class="facts">
        <dt>Actions</dt>
        <dd>
          <code>{(r.actions ?? []).join(", ") || "none"}</code>
        </dd>
        <dt>Limits</dt>
        <dd>
          {Object.entries(r.limits)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ") || "none"}
        </dd>
        <dt>Mandate</dt>
        <dd>
          {r.mandate_days} days, {r.delegations} delegations; tokens {r.token_days} days
        </dd>
        <dt>Settings</dt>
        <dd>
          {settings.length === 0
            ? "none"
            : settings.map(([k, v]) => (
                <div key={k}>
                  <code>{k}</code> {isSecret(k, v) ? <span class="badge">{v ? "set" : "unset"}</span> : <code>{v}</code>}
                </div>
              ))}
        </dd>
      </dl>
      {canArchive && !r.archived_at && (
        <div class="actions">
          <ConfirmButton
            label={`Archive ${r.name}`}
            op="people-archive-role"
            danger
            disabled={busy}
            title={`Archive ${r.name}?`}
            effect={<p>Nobody can be hired from {r.name} from now on. Agents already hired from it keep working.</p>}
            confirm="Archive"
            onConfirm={async () => {
              if (await run(() => api.POST("/admin/api/roles/{role_id}/archive", { params: { path: { role_id: r.id } } }))) onDone(`Archived ${r.name}.`);
            }}
          />
        </div>
      )}
      <Alert text={error} />
      {canSave && !r.archived_at && (
        <Folded summary={`Edit ${r.name}`}>
          <RoleForm role={r} onDone={onDone} />
        </Folded>
      )}
    </article>
  );
}

/**
 * Folded shows its form only while open, so each role's fields exist once
 * a person opens them, and one form's labels name one field on the page.
 */
function Folded({ summary, children }: { summary: string; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {open && children}
    </details>
  );
}

/** pairs reads "KEY=value" lines; blank lines are skipped. */
function pairs(text: string): [string, string][] | string {
  const out: [string, string][] = [];
  for (const line of text.split("\n")) {
    const l = line.trim();
    if (!l) continue;
    const i = l.indexOf("=");
    if (i < 1) return `"${l}" is not NAME=value.`;
    out.push([l.slice(0, i).trim(), l.slice(i + 1).trim()]);
  }
  return out;
}

function RoleForm({ role, onDone }: { role?: AgentRole; onDone: (what: string) => void }) {
  const [id, setId] = useState("");
  const [name, setName] = useState(role?.name ?? "");
  const [description, setDescription] = useState(role?.description ?? "");
  const [client, setClient] = useState<Client>((role?.client as Client) ?? "code");
  const [actions, setActions] = useState((role?.actions ?? ["task.read", "task.work"]).join(", "));
  const [limits, setLimits] = useState(
    Object.entries(role?.limits ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  const [mandateDays, setMandateDays] = useState(String(role?.mandate_days ?? 30));
  const [tokenDays, setTokenDays] = useState(String(role?.token_days ?? 90));
  const [delegations, setDelegations] = useState(String(role?.delegations ?? 1));
  const [instructions, setInstructions] = useState(role?.instructions ?? "");
  const kept = Object.entries(role?.settings ?? {});
  // Plain settings are edited as text; a secret one is replaced only when
  // a new value is typed, else sent back redacted, which keeps it.
  const [plain, setPlain] = useState(
    kept
      .filter(([k, v]) => !isSecret(k, v))
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [bad, setBad] = useState("");
  const [run, { busy, error }] = useAction();
  const label = role ? `Save role ${role.name}` : "Save role";
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const lim = pairs(limits);
        const set = pairs(plain);
        if (typeof lim === "string") return setBad(`Limits: ${lim}`);
        if (typeof set === "string") return setBad(`Settings: ${set}`);
        const limitsOut: Record<string, number> = {};
        for (const [k, v] of lim) {
          const n = Number(v);
          if (!Number.isFinite(n)) return setBad(`Limits: ${k} must be a number.`);
          limitsOut[k] = n;
        }
        const settings: Record<string, string> = Object.fromEntries(set);
        for (const [k, v] of kept) {
          if (!isSecret(k, v)) continue;
          const typed = (secrets[k] ?? "").trim();
          settings[k] = typed || v;
        }
        setBad("");
        const roleId = role?.id ?? id.trim();
        const body: SaveRole = {
          name: name.trim(),
          description: description.trim(),
          client,
          actions: actions
            .split(",")
            .map((a) => a.trim())
            .filter(Boolean),
          limits: limitsOut,
          mandate_days: Number(mandateDays),
          token_days: Number(tokenDays),
          delegations: Number(delegations),
          instructions,
          settings,
        };
        if (await run(() => api.PUT("/admin/api/roles/{role_id}", { params: { path: { role_id: roleId } }, body }))) {
          if (!role) setId("");
          // Saved, a secret is only set or unset: its value leaves the form.
          setPlain(
            set
              .filter(([k, v]) => !isSecret(k, v))
              .map(([k, v]) => `${k}=${v}`)
              .join("\n"),
          );
          setSecrets({});
          onDone(`Saved role ${body.name}.`);
        }
      }}
    >
      {!role && (
        <label>
          Role id
          <input type="text" required value={id} onInput={(e) => setId(e.currentTarget.value)} />
        </label>
      )}
      <label>
        Name
        <input type="text" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Description
        <input type="text" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <label>
        Client
        <select value={client} disabled={!!role} onChange={(e) => setClient(e.currentTarget.value as Client)}>
          {clients.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Actions, separated by commas
        <input type="text" required value={actions} onInput={(e) => setActions(e.currentTarget.value)} />
      </label>
      <label>
        Limits, one NAME=number a line
        <textarea rows={3} value={limits} onInput={(e) => setLimits(e.currentTarget.value)} />
      </label>
      <div class="filters">
        <label>
          Mandate term (days)
          <input type="number" min="1" step="any" required value={mandateDays} onInput={(e) => setMandateDays(e.currentTarget.value)} />
        </label>
        <label>
          Token term (days)
          <input type="number" min="1" step="any" required value={tokenDays} onInput={(e) => setTokenDays(e.currentTarget.value)} />
        </label>
        <label>
          Delegations
          <input type="number" min="0" step="1" required value={delegations} onInput={(e) => setDelegations(e.currentTarget.value)} />
        </label>
      </div>
      <label>
        Settings, one NAME=value a line ({"{project}"} is filled in; a secret one is kept sealed)
        <textarea rows={3} value={plain} onInput={(e) => setPlain(e.currentTarget.value)} />
      </label>
      {kept
        .filter(([k, v]) => isSecret(k, v))
        .map(([k, v]) => (
          <label key={k}>
            {k} ({v ? "set" : "unset"}): a new value, or blank to keep it
            <input type="password" autocomplete="off" value={secrets[k] ?? ""} onInput={(e) => setSecrets({ ...secrets, [k]: e.currentTarget.value })} />
          </label>
        ))}
      <label>
        Instructions for the agents
        <textarea rows={4} value={instructions} onInput={(e) => setInstructions(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" class="primary" data-op="people-save-role" disabled={busy}>
          {label}
        </button>
      </div>
      <Alert text={bad || error} />
    </form>
  );
}
