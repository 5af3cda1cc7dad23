// Your notifications, on Settings (docs/notifications.md, "Email"): your
// unread threshold (nudge_after, PUT /me/pact-settings) with the switch that
// emails its notice, then a switch per kind of notice. Email is off until a
// person turns a kind on; each switch is PUT /me/email with exactly the
// kinds left on. When the board sends no email (no PACT_SMTP_URL), the
// page says so and the switches are disabled.
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Alert, Status, useAction, useLoad } from "../ui";

type Nudge = Schemas["PactMySettings"]["nudge_after"];
type Email = Schemas["EmailSettings"];

const nudges: { value: Nudge; label: string }[] = [
  { value: "30m", label: "30 minutes" },
  { value: "1h", label: "1 hour" },
  { value: "3h", label: "3 hours" },
  { value: "12h", label: "12 hours" },
  { value: "24h", label: "24 hours" },
];

/** The unread nudge's kind: its switch stands beside the threshold. */
const unread = "pact_unread";

/** What each kind's switch says; a kind the console does not know yet is named by its id. */
const switches: Record<string, string> = {
  approval_needed: "Email me when a task needs approval",
  deferred: "Email me when an agent hands a task to people",
  question: "Email me when an agent asks a question",
  pact_decision: "Email me when a pact needs a decision",
  awaiting_session: "Email me when a task waits for a session",
  task_closed: "Email me when a task closes",
  message: "Email me an agent's messages about its tasks",
  brief: "Email me the briefs",
  expiring: "Email me when an agent or mandate expires soon",
  expired: "Email me when an agent or mandate has expired",
  [unread]: "Email me when an agent hasn't read a pact message",
  pact_stuck: "Email me when an agent's webhook is switched off",
};

function switchLabel(kind: string): string {
  return switches[kind] ?? `Email me notices of kind ${kind}`;
}

export function YourNotifications() {
  const email = useLoad(() => api.GET("/admin/api/me/email"), []);
  const mine = useLoad(() => api.GET("/admin/api/me/pact-settings"), []);
  const canSetMine = useCan("pacts-set-my-settings");
  const canEmail = useCan("notify-set-email-settings");
  const [runMine, nudge] = useAction();
  const [runEmail, mail] = useAction();
  const [done, setDone] = useState("");
  const e = email.data;
  const off = !e?.sending || !canEmail || mail.busy;

  async function toggle(set: Email, kind: string, on: boolean) {
    const kinds = set.kinds.filter((k) => (k.kind === kind ? on : k.email)).map((k) => k.kind);
    if (await runEmail(() => api.PUT("/admin/api/me/email", { body: { kinds } }))) {
      setDone(on ? `${switchLabel(kind)}: on.` : `${switchLabel(kind)}: off.`);
      email.reload();
    }
  }
  const emailSwitch = (set: Email, kind: string, on: boolean) => (
    <label class="check" key={kind}>
      <input type="checkbox" role="switch" data-op="notify-set-email-settings" checked={on} disabled={off} onChange={(ev) => toggle(set, kind, ev.currentTarget.checked)} />
      {switchLabel(kind)}
    </label>
  );
  const unreadOn = e?.kinds.find((k) => k.kind === unread)?.email ?? false;

  return (
    <>
      <h2>Your notifications</h2>
      <p class="meta">Every notice that concerns you reaches your bell at once. Email is off until you turn a kind on.</p>
      <Status loaded={email} what="your email choices" />
      {e && !e.sending && (
        <p class="notice">This board sends no email (its operator has not set PACT_SMTP_URL), so these switches are off.</p>
      )}
      {e && e.sending && !e.address && <p class="notice">You have no email address on this board, so nothing is emailed to you.</p>}
      {e && e.sending && e.address && (
        <p class="meta">
          Email goes to <strong>{e.address}</strong>.
        </p>
      )}
      <fieldset class="zone">
        <legend>Unread pact messages</legend>
        <Status loaded={mine} what="your pact settings" />
        {mine.data && (
          <>
            <label for="nudge-after">Tell me when a message in a pact I own waits unread for</label>
            <select
              id="nudge-after"
              data-op="pacts-set-my-settings"
              value={mine.data.nudge_after}
              disabled={!canSetMine || nudge.busy}
              onChange={async (ev) => {
                const v = nudges.find((n) => n.value === ev.currentTarget.value);
                if (!v) return;
                if (await runMine(() => api.PUT("/admin/api/me/pact-settings", { body: { nudge_after: v.value } }))) {
                  setDone(`You hear of unread messages after ${v.label}.`);
                  mine.reload();
                }
              }}
            >
              {nudges.map((n) => (
                <option key={n.value} value={n.value}>
                  {n.label}
                </option>
              ))}
            </select>
          </>
        )}
        {e && emailSwitch(e, unread, unreadOn)}
        <p class="meta">
          Once a message has waited that long, the notice reaches your bell and, with this switch on, your email: the two arrive
          together.
        </p>
      </fieldset>
      {e && (
        <fieldset class="zone">
          <legend>Email me other notices</legend>
          {e.kinds.filter((k) => k.kind !== unread).map((k) => emailSwitch(e, k.kind, k.email))}
        </fieldset>
      )}
      <Alert text={nudge.error} />
      <Alert text={mail.error} />
      <p class="notice" role="status">
        {done}
      </p>
    </>
  );
}
