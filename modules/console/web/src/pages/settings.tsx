// Settings: the kill switch first, then the organization's open-pact
// limit, your notifications (your unread threshold and what is emailed to
// you, email.tsx), people and invitations, approval rules, the Slack
// webhook and the notification destinations (destinations.tsx).
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan, usePerson } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad, usePages } from "../ui";
import { Destinations } from "./destinations";
import { Languages } from "./account";
import { YourNotifications } from "./email";

type Org = Schemas["OrgSettings"];
type Human = Schemas["Human"];
type HumanRole = Human["role"];
const roles: HumanRole[] = ["viewer", "approver", "owner"];

export function Settings() {
  const org = useLoad(() => api.GET("/admin/api/org"), []);
  return (
    <section>
      <h1>Settings</h1>
      <Status loaded={org} what="the organization's settings" />
      {org.data && <KillSwitch org={org.data} onChanged={org.reload} />}
      <PactSettings />
      <YourNotifications />
      {org.data && <Languages org={org.data} onChanged={org.reload} />}
      <People />
      <ApprovalRules />
      {org.data && <SlackWebhook org={org.data} onChanged={org.reload} />}
      <Destinations />
    </section>
  );
}

function KillSwitch({ org, onChanged }: { org: Org; onChanged: () => void }) {
  const allowed = useCan("people-set-kill-switch");
  const [run, { busy, error }] = useAction();
  const [done, setDone] = useState("");
  async function set(halted: boolean) {
    if (await run(() => api.POST("/admin/api/kill-switch", { body: { halted } }))) {
      setDone(halted ? "Every agent is halted." : "Agents may work again.");
      onChanged();
    }
  }
  return (
    <div class={`zone killswitch${org.halted ? " halted" : ""}`}>
      <h2>Kill switch</h2>
      <p role="status">
        {org.halted ? (
          <strong class="refused">Halted: every agent call of {org.name} is refused.</strong>
        ) : (
          <>Agents are working normally.</>
        )}
      </p>
      {allowed && (
        <div class="actions">
          {org.halted ? (
            <ConfirmButton
              label="Lift the halt"
              op="people-set-kill-switch"
              disabled={busy}
              title="Let every agent work again?"
              effect={<p>Every agent of {org.name} may call the board again, within its mandates.</p>}
              confirm="Lift the halt"
              onConfirm={() => set(false)}
            />
          ) : (
            <ConfirmButton
              label="Halt every agent"
              op="people-set-kill-switch"
              danger
              disabled={busy}
              title={`Halt every agent of ${org.name}?`}
              effect={<p>Every agent call of the organization is refused until you lift it.</p>}
              confirm="Halt every agent"
              onConfirm={() => set(true)}
            />
          )}
        </div>
      )}
      <p class="notice" role="status">
        {done}
      </p>
      <Alert text={error} />
    </div>
  );
}

function PactSettings() {
  const orgSettings = useLoad(() => api.GET("/admin/api/pact-settings"), []);
  const canSetOrg = useCan("pacts-set-settings");
  const [limit, setLimit] = useState("");
  const [runOrg, org] = useAction();
  const [done, setDone] = useState("");
  const shownLimit = limit || String(orgSettings.data?.open_limit ?? "");
  return (
    <>
      <h2>Pacts</h2>
      <Status loaded={orgSettings} what="the pact settings" />
      {orgSettings.data &&
        (canSetOrg ? (
          <form
            class="inline"
            onSubmit={async (e) => {
              e.preventDefault();
              const n = Number(shownLimit);
              if (await runOrg(() => api.PUT("/admin/api/pact-settings", { body: { open_limit: n } }))) {
                setDone(`Open-pact limit set to ${n}.`);
                setLimit("");
                orgSettings.reload();
              }
            }}
          >
            <label>
              Open pacts a project may have
              <input type="number" min={1} step={1} required value={shownLimit} onInput={(e) => setLimit(e.currentTarget.value)} />
            </label>
            <button type="submit" data-op="pacts-set-settings" disabled={org.busy}>
              Save limit
            </button>
          </form>
        ) : (
          <p>Open pacts a project may have: {orgSettings.data.open_limit}. Closed pacts do not count.</p>
        ))}
      <Alert text={org.error} />
      <p class="notice" role="status">
        {done}
      </p>
    </>
  );
}

function People() {
  const humans = useLoad(() => api.GET("/admin/api/humans"), []);
  const canInvite = useCan("people-create-human");
  const canUpdate = useCan("people-update-human");
  const [shown, pager] = usePages(humans.data?.humans ?? [], 20);
  const [done, setDone] = useState("");
  const changed = (what: string) => {
    setDone(what);
    humans.reload();
  };
  return (
    <>
      <h2>People</h2>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={humans} what="people" />
      <ul class="rows">
        {shown.map((h) => (
          <li key={h.id} class={h.disabled_at ? "closed" : ""}>
            <span>
              <strong>{h.name}</strong> <span class="role">{h.role}</span> {h.disabled_at && <span class="badge">Disabled</span>}
            </span>
            <span class="meta">
              {h.id} · {h.email ?? "no email"} · added <Ago at={h.created_at} />
            </span>
            {canUpdate && <PersonControls h={h} onDone={changed} />}
          </li>
        ))}
      </ul>
      {pager}
      {canInvite && <Invite onDone={changed} />}
    </>
  );
}

function PersonControls({ h, onDone }: { h: Human; onDone: (what: string) => void }) {
  const me = usePerson();
  const [run, { busy, error }] = useAction();
  const path = { params: { path: { human_id: h.id } } };
  if (h.id === me.id) return null;
  return (
    <div class="actions">
      <label class="sr-only" for={`role-${h.id}`}>
        Role of {h.name}
      </label>
      <select
        id={`role-${h.id}`}
        data-op="people-update-human"
        class="narrow"
        value={h.role}
        disabled={busy}
        onChange={async (e) => {
          const role = roles.find((r) => r === e.currentTarget.value);
          if (role && (await run(() => api.PATCH("/admin/api/humans/{human_id}", { ...path, body: { role } }))))
            onDone(`${h.name} is now ${role}.`);
        }}
      >
        {roles.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {h.disabled_at ? (
        <button
          type="button"
          data-op="people-update-human"
          disabled={busy}
          onClick={async () => {
            if (await run(() => api.PATCH("/admin/api/humans/{human_id}", { ...path, body: { disabled: false } }))) onDone(`${h.name} may sign in again.`);
          }}
        >
          Re-enable
        </button>
      ) : (
        <ConfirmButton
          label="Disable"
          op="people-update-human"
          danger
          disabled={busy}
          title={`Disable ${h.name}?`}
          effect={<p>{h.name} can no longer sign in or act; what they did stays in the log. You can re-enable them later.</p>}
          confirm="Disable"
          onConfirm={async () => {
            if (await run(() => api.PATCH("/admin/api/humans/{human_id}", { ...path, body: { disabled: true } }))) onDone(`${h.name} is disabled.`);
          }}
        />
      )}
      <Alert text={error} />
    </div>
  );
}

function Invite({ onDone }: { onDone: (what: string) => void }) {
  const [id, setId] = useState("");
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<HumanRole>("viewer");
  const [run, { busy, error }] = useAction();
  return (
    <form
      class="zone"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await run(() => api.POST("/admin/api/humans", { body: { id, name, email, role } }))) {
          onDone(`Invited ${name}: they sign in with ${email}.`);
          setId("");
          setName("");
          setEmail("");
        }
      }}
    >
      <h3>Invite a person</h3>
      <label>
        Name
        <input type="text" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Id (lower-case letters, digits, . _ -)
        <input type="text" required pattern="[a-z0-9][a-z0-9._\-]{0,62}" value={id} onInput={(e) => setId(e.currentTarget.value)} />
      </label>
      <label>
        Email they sign in with
        <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(roles.find((r) => r === e.currentTarget.value) ?? "viewer")}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <div class="actions">
        <button type="submit" class="primary" data-op="people-create-human" disabled={busy}>
          Invite
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}

function ApprovalRules() {
  const rules = useLoad(() => api.GET("/admin/api/approval-rules"), []);
  const canSet = useCan("people-set-approval-rules");
  const [adding, setAdding] = useState("");
  const [run, { busy, error }] = useAction();
  const [done, setDone] = useState("");
  const actions = rules.data?.actions ?? [];
  async function save(next: string[], what: string) {
    if (await run(() => api.PUT("/admin/api/approval-rules", { body: { actions: next } }))) {
      setDone(what);
      rules.reload();
    }
  }
  return (
    <>
      <h2>Approval rules</h2>
      <p class="meta">Tasks for these actions wait for a person's approval. A trailing .* covers every sub-action.</p>
      <Status loaded={rules} what="the approval rules" />
      {rules.data && actions.length === 0 && <p class="empty">Nothing needs approval.</p>}
      <ul class="rows">
        {actions.map((a) => (
          <li key={a}>
            <code>{a}</code>
            {canSet && (
              <div class="actions">
                <ConfirmButton
                  label={`Remove ${a}`}
                  op="people-set-approval-rules"
                  disabled={busy}
                  title={`Stop asking approval for ${a}?`}
                  effect={<p>New tasks for {a} no longer wait for a person; agents go ahead within their mandates.</p>}
                  confirm="Remove the rule"
                  onConfirm={() => save(actions.filter((x) => x !== a), `${a} no longer needs approval.`)}
                />
              </div>
            )}
          </li>
        ))}
      </ul>
      {canSet && rules.data && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const a = adding.trim();
            if (!a || actions.includes(a)) return;
            await save([...actions, a], `${a} now needs approval.`);
            setAdding("");
          }}
        >
          <label>
            Action that needs approval
            <input type="text" required placeholder="payments.*" value={adding} onInput={(e) => setAdding(e.currentTarget.value)} />
          </label>
          <button type="submit" data-op="people-set-approval-rules" disabled={busy}>
            Add rule
          </button>
        </form>
      )}
      <Alert text={error} />
      <p class="notice" role="status">
        {done}
      </p>
    </>
  );
}

function SlackWebhook({ org, onChanged }: { org: Org; onChanged: () => void }) {
  const canSet = useCan("people-update-org");
  const [url, setUrl] = useState("");
  const [run, { busy, error }] = useAction();
  const [done, setDone] = useState("");
  async function save(slack_webhook_url: string | null, what: string) {
    if (await run(() => api.PUT("/admin/api/org", { body: { slack_webhook_url } }))) {
      setDone(what);
      setUrl("");
      onChanged();
    }
  }
  return (
    <>
      <h2>Slack</h2>
      <p>{org.slack.configured ? <>Notifications go to a Slack webhook {org.slack.hint && <code>{org.slack.hint}</code>}.</> : "No Slack webhook is set."}</p>
      {canSet && (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            save(url.trim(), "Slack webhook saved.");
          }}
        >
          <label>
            {org.slack.configured ? "Replace the webhook URL" : "Webhook URL"}
            <input type="url" required placeholder="https://hooks.slack.com/services/…" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
          </label>
          <button type="submit" data-op="people-update-org" disabled={busy}>
            Save webhook
          </button>
          {org.slack.configured && (
            <ConfirmButton
              label="Remove webhook"
              op="people-update-org"
              danger
              disabled={busy}
              title="Remove the Slack webhook?"
              effect={<p>The organization's notifications stop going to Slack.</p>}
              confirm="Remove"
              onConfirm={() => save(null, "Slack webhook removed.")}
            />
          )}
        </form>
      )}
      <Alert text={error} />
      <p class="notice" role="status">
        {done}
      </p>
    </>
  );
}
