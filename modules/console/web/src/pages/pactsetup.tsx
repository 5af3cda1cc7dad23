// Setting a pact up and running it from the console (issue 31, section 2,
// Pacts): the New pact dialog, inviting and removing seats, the person's
// own seat (join, post, zone, handshake) and Wake it on a stuck job. Every
// control that writes carries data-op, its Admin API operation, and is
// shown only when the person's role allows that operation (roles.ts);
// cmd/pact-board's console journeys read data-op to check it.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, type Schemas } from "../client";
import { can } from "../roles";
import { useCan, usePerson } from "../session";
import { Alert, ConfirmButton, useAction, useLoad } from "../ui";

type Seat = Schemas["SeatView"];
type Agent = Schemas["Agent"];
type Human = Schemas["Human"];

/** The rule the API enforces on a seat's prefix (docs/pacts.md, "What a pact holds"). */
const prefixRule = /^[A-Z]{1,4}$/;

/**
 * prefixProblem says what is wrong with prefix for a pact whose seats
 * already hold taken (prefix → who), or "" when the API would take it.
 */
export function prefixProblem(prefix: string, taken: Record<string, string>): string {
  if (prefix === "") return "Give a prefix: 1 to 4 capital letters.";
  if (!prefixRule.test(prefix)) return "Use 1 to 4 capital letters, A to Z, and nothing else.";
  const who = taken[prefix];
  if (who) return `${prefix} is already ${who}'s in this pact.`;
  return "";
}

/** suggestPrefix proposes a free prefix from an id: its initials, then more letters. */
function suggestPrefix(id: string, taken: Record<string, string>): string {
  const parts = id.toUpperCase().split(/[^A-Z]+/).filter(Boolean);
  const initials = parts.map((p) => p[0]).join("").slice(0, 4);
  const letters = parts.join("");
  const tries = [initials, letters.slice(0, 2), letters.slice(0, 3), letters.slice(0, 4)];
  for (const t of tries) if (t && !taken[t]) return t;
  return "";
}

/** PrefixField is a prefix input whose problem is said as the person types. */
function PrefixField(props: { label: string; value: string; taken: Record<string, string>; onInput: (v: string) => void }) {
  const id = useId();
  const problem = prefixProblem(props.value, props.taken);
  return (
    <>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type="text"
        value={props.value}
        maxLength={4}
        autoComplete="off"
        aria-invalid={problem ? "true" : "false"}
        aria-describedby={`${id}-said`}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      <p id={`${id}-said`} class={problem ? "meta refused" : "meta"} aria-live="polite">
        {problem || `${props.value} is free: messages will be numbered ${props.value}-001, ${props.value}-002…`}
      </p>
    </>
  );
}

/** A seat someone can be invited to: an agent of the project or a person. */
interface Candidate {
  kind: "agent" | "person";
  id: string;
  label: string;
}

function candidates(agents: Agent[], people: Human[], project: string, me: string, seated: Seat[]): Candidate[] {
  const has = new Set(seated.filter((s) => s.state !== "removed").flatMap((s) => [s.agent_id ?? "", s.human_id ?? ""]));
  return [
    ...agents
      .filter((a) => a.status === "active" && !a.replaced_by && a.projects.includes(project) && !has.has(a.id))
      .map((a): Candidate => ({ kind: "agent", id: a.id, label: `Agent ${a.id}` })),
    ...people
      .filter((h) => !h.disabled_at && h.id !== me && !has.has(h.id))
      .map((h): Candidate => ({ kind: "person", id: h.id, label: `Person ${h.name}` })),
  ];
}

function useDirectory() {
  const agents = useLoad(() => api.GET("/admin/api/agents"), []);
  const people = useLoad(() => api.GET("/admin/api/humans"), []);
  return { agents: agents.data?.agents ?? [], people: people.data?.humans ?? [], error: agents.error || people.error };
}

/** NewPact opens the New pact dialog, for those who may start one. */
export function NewPact() {
  const allowed = useCan("pacts-create");
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  const heading = useId();
  if (!allowed) return null;
  return (
    <div class="actions">
      <button type="button" class="primary" data-op="pacts-create" onClick={() => setOpen(true)}>
        New pact
      </button>
      <dialog ref={dialog} onClose={() => setOpen(false)} aria-labelledby={heading} class="wide">
        {open && <NewPactForm heading={heading} onCancel={() => setOpen(false)} />}
      </dialog>
    </div>
  );
}

function NewPactForm({ heading, onCancel }: { heading: string; onCancel: () => void }) {
  const me = usePerson();
  const { route } = useLocation();
  const projects = useLoad(() => api.GET("/admin/api/projects"), []);
  const dir = useDirectory();
  const [name, setName] = useState("");
  const [project, setProject] = useState("");
  const [purpose, setPurpose] = useState("");
  const [rules, setRules] = useState("");
  const [prefix, setPrefix] = useState("");
  const [invite, setInvite] = useState<Record<string, { c: Candidate; prefix: string }>>({});
  const [run, { busy, error }] = useAction();
  const ids = { name: useId(), project: useId(), purpose: useId(), rules: useId() };
  const list = projects.data?.projects ?? [];
  const chosen = project || list[0]?.id || "";
  const offered = candidates(dir.agents, dir.people, chosen, me.id, []);
  // Each prefix is checked against every other one in the pact to be.
  const takenBy = (except: string): Record<string, string> => {
    const t: Record<string, string> = {};
    if (except !== "you" && prefix) t[prefix] = "your seat";
    for (const [k, v] of Object.entries(invite)) if (k !== except && v.prefix) t[v.prefix] = v.c.id;
    return t;
  };
  const invited = Object.entries(invite).filter(([k]) => offered.some((c) => `${c.kind}:${c.id}` === k));
  const problems = [
    name.trim() === "" ? "Give the pact a name." : "",
    purpose.trim() === "" ? "Say what the pact is for." : "",
    chosen === "" ? "Choose a project." : "",
    prefixProblem(prefix, takenBy("you")),
    ...invited.map(([k, v]) => prefixProblem(v.prefix, takenBy(k))),
  ].filter(Boolean);
  async function start(e: Event) {
    e.preventDefault();
    if (problems.length > 0) return;
    let created = "";
    const ok = await run(async () => {
      const r = await api.POST("/admin/api/pacts", {
        body: {
          project_id: chosen,
          name: name.trim(),
          purpose,
          rules,
          prefix,
          invite: invited.map(([, v]) =>
            v.c.kind === "agent" ? { agent_id: v.c.id, prefix: v.prefix } : { human_id: v.c.id, prefix: v.prefix },
          ),
        },
      });
      created = r.data?.pact_id ?? "";
      return r;
    });
    if (ok && created) route(`/console/pacts/${created}`);
  }
  return (
    <form onSubmit={start}>
      <h2 id={heading}>New pact</h2>
      <p class="meta">You take its first seat and answer for it. The rules are frozen once it starts.</p>
      <label for={ids.name}>Name</label>
      <input id={ids.name} type="text" maxLength={120} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for={ids.project}>Project</label>
      <select id={ids.project} value={chosen} onChange={(e) => setProject(e.currentTarget.value)}>
        {list.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} ({p.id})
          </option>
        ))}
      </select>
      <label for={ids.purpose}>Purpose</label>
      <textarea id={ids.purpose} rows={3} maxLength={4000} value={purpose} onInput={(e) => setPurpose(e.currentTarget.value)} />
      <label for={ids.rules}>Rules</label>
      <textarea id={ids.rules} rows={3} maxLength={8000} value={rules} onInput={(e) => setRules(e.currentTarget.value)} />
      <PrefixField label="Your prefix" value={prefix} taken={takenBy("you")} onInput={setPrefix} />
      <fieldset>
        <legend>Seats to invite</legend>
        {dir.error && <Alert text={`Could not load who can be invited: ${dir.error}`} />}
        {offered.length === 0 && <p class="empty">Nobody else can be seated in this project.</p>}
        {offered.map((c) => {
          const k = `${c.kind}:${c.id}`;
          const on = invite[k];
          return (
            <div key={k}>
              <label class="check">
                <input
                  type="checkbox"
                  checked={!!on}
                  onChange={(e) => {
                    const checked = e.currentTarget.checked;
                    setInvite((was) => {
                      const next = { ...was };
                      if (checked) next[k] = { c, prefix: suggestPrefix(c.id, takenBy(k)) };
                      else delete next[k];
                      return next;
                    });
                  }}
                />
                {c.label}
              </label>
              {on && (
                <PrefixField
                  label={`Prefix for ${c.id}`}
                  value={on.prefix}
                  taken={takenBy(k)}
                  onInput={(v) => setInvite((was) => ({ ...was, [k]: { c, prefix: v } }))}
                />
              )}
            </div>
          );
        })}
      </fieldset>
      {problems.length > 0 && (
        <ul class="meta" aria-label="Still to do">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <Alert text={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || problems.length > 0}>
          Start the pact
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** InviteSeat invites an agent of the pact's project or a person to a new seat. */
export function InviteSeat({ pactId, project, seats, onDone }: { pactId: string; project: string; seats: Seat[]; onDone: (what: string) => void }) {
  const allowed = useCan("pacts-invite");
  const me = usePerson();
  const dir = useDirectory();
  const [who, setWho] = useState("");
  const [prefix, setPrefix] = useState("");
  const [run, { busy, error }] = useAction();
  const pick = useId();
  if (!allowed) return null;
  const offered = candidates(dir.agents, dir.people, project, me.id, seats);
  const taken: Record<string, string> = {};
  for (const s of seats) taken[s.prefix] = s.key;
  const chosen = offered.find((c) => `${c.kind}:${c.id}` === who);
  const problem = chosen ? prefixProblem(prefix, taken) : "Choose whom to invite.";
  async function invite(e: Event) {
    e.preventDefault();
    if (!chosen || problem) return;
    const body = chosen.kind === "agent" ? { agent_id: chosen.id, prefix } : { human_id: chosen.id, prefix };
    if (await run(() => api.POST("/admin/api/pacts/{pact_id}/seats", { params: { path: { pact_id: pactId } }, body }))) {
      setWho("");
      setPrefix("");
      onDone(`Invited ${chosen.id} as ${prefix}.`);
    }
  }
  return (
    <form class="zone" onSubmit={invite} aria-label="Invite a seat">
      <h3>Invite a seat</h3>
      {dir.error && <Alert text={`Could not load who can be invited: ${dir.error}`} />}
      <label for={pick}>Whom to invite</label>
      <select
        id={pick}
        value={who}
        onChange={(e) => {
          const v = e.currentTarget.value;
          setWho(v);
          const c = offered.find((x) => `${x.kind}:${x.id}` === v);
          if (c) setPrefix(suggestPrefix(c.id, taken));
        }}
      >
        <option value="">Choose an agent or a person</option>
        {offered.map((c) => (
          <option key={`${c.kind}:${c.id}`} value={`${c.kind}:${c.id}`}>
            {c.label}
          </option>
        ))}
      </select>
      {chosen && <PrefixField label="Their prefix" value={prefix} taken={taken} onInput={setPrefix} />}
      <Alert text={error} />
      <div class="actions">
        <button type="submit" data-op="pacts-invite" disabled={busy || problem !== ""}>
          Invite
        </button>
      </div>
    </form>
  );
}

/** RemoveSeat revokes a seat after saying what that does. */
export function RemoveSeat({ pactId, seat, seats, onDone }: { pactId: string; seat: Seat; seats: Seat[]; onDone: (what: string) => void }) {
  const allowed = useCan("pacts-remove-seat");
  const [run, { busy, error }] = useAction();
  if (!allowed || seat.state === "removed") return null;
  const voices = seats.filter((s) => s.key !== seat.key && (s.state === "joined" || s.state === "paused")).length;
  return (
    <div class="actions">
      <ConfirmButton
        label={`Remove ${seat.key}`}
        op="pacts-remove-seat"
        danger
        disabled={busy}
        title={`Remove ${seat.key} from the pact?`}
        effect={
          <>
            <p>{`${seat.display_name} writes nothing more in this pact; what the seat wrote stays. This cannot be undone: invite them again to a new seat.`}</p>
            {voices < 2 && (
              <p class="warn">
                {voices === 0 ? "No joined seat would be left." : "Only one joined seat would be left."} A pact with one voice is just a note.
              </p>
            )}
          </>
        }
        confirm="Remove the seat"
        onConfirm={async () => {
          let warning = "";
          const ok = await run(async () => {
            const r = await api.POST("/admin/api/pacts/{pact_id}/seats/{seat}/remove", {
              params: { path: { pact_id: pactId, seat: seat.key } },
            });
            warning = r.data?.warning ?? "";
            return r;
          });
          if (ok) onDone(`Removed ${seat.key}.${warning ? ` Warning: ${warning}.` : ""}`);
        }}
      />
      <Alert text={error} />
    </div>
  );
}

/**
 * YourSeat is the signed-in person's own seat: join it while it waits,
 * then post in the thread and write their zone and handshake. The Admin
 * API lets any role do these from a seat of their own.
 */
export function YourSeat({ pactId, seat, zone, onDone }: { pactId: string; seat: Seat; zone: string; onDone: (what: string) => void }) {
  const person = usePerson();
  const [run, { busy, error }] = useAction();
  const [body, setBody] = useState("");
  const [zoneText, setZone] = useState(zone);
  const [hand, setHand] = useState(seat.handshake ?? "");
  const ids = { body: useId(), zone: useId(), hand: useId() };
  const path = { params: { path: { pact_id: pactId } } };
  if (seat.state === "invited" && can(person.role, "pacts-join"))
    return (
      <div class="zone" role="region" aria-label="Your seat">
        <h3>Your seat {seat.key}</h3>
        <p>A seat waits for you in this pact. Take it to post and write your zone.</p>
        <div class="actions">
          <button
            type="button"
            class="primary"
            data-op="pacts-join"
            disabled={busy}
            onClick={async () => {
              if (await run(() => api.POST("/admin/api/pacts/{pact_id}/join", path))) onDone(`You took the seat ${seat.key}.`);
            }}
          >
            Join
          </button>
        </div>
        <Alert text={error} />
      </div>
    );
  if (seat.state !== "joined") return null;
  return (
    <div class="zone" role="region" aria-label="Your seat">
      <h3>Your seat {seat.key}</h3>
      {can(person.role, "pacts-post") && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (body.trim() === "") return;
            if (await run(() => api.POST("/admin/api/pacts/{pact_id}/messages", { ...path, body: { body } }))) {
              setBody("");
              onDone("Posted.");
            }
          }}
        >
          <label for={ids.body}>Your message</label>
          <textarea id={ids.body} rows={3} maxLength={20000} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
          <p class="meta">Messages are never edited or deleted: to correct one, reply to it.</p>
          <div class="actions">
            <button type="submit" class="primary" data-op="pacts-post" disabled={busy || body.trim() === ""}>
              Post
            </button>
          </div>
        </form>
      )}
      {can(person.role, "pacts-write-section") && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (
              await run(() =>
                api.PUT("/admin/api/pacts/{pact_id}/sections/{key}", {
                  params: { path: { pact_id: pactId, key: seat.key } },
                  body: { body: zoneText },
                }),
              )
            )
              onDone("Saved your zone.");
          }}
        >
          <label for={ids.zone}>Your zone</label>
          <textarea id={ids.zone} rows={4} maxLength={20000} value={zoneText} onInput={(e) => setZone(e.currentTarget.value)} />
          <div class="actions">
            <button type="submit" data-op="pacts-write-section" disabled={busy}>
              Save zone
            </button>
          </div>
        </form>
      )}
      {can(person.role, "pacts-write-handshake") && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (await run(() => api.PUT("/admin/api/pacts/{pact_id}/handshake", { ...path, body: { handshake: hand } })))
              onDone("Saved your handshake.");
          }}
        >
          <label for={ids.hand}>Your handshake</label>
          <textarea id={ids.hand} rows={2} maxLength={2000} value={hand} onInput={(e) => setHand(e.currentTarget.value)} />
          <div class="actions">
            <button type="submit" data-op="pacts-write-handshake" disabled={busy}>
              Save handshake
            </button>
          </div>
        </form>
      )}
      <Alert text={error} />
    </div>
  );
}

/**
 * WakeIt turns a stuck agent's switched-off webhook back on: shown to
 * approvers and owners, and to the agent's own person (the operation's own
 * check, docs/pacts.md "Wake it").
 */
export function WakeIt(props: { agent: string; owner: string | undefined; alone: boolean; onDone: (what: string) => void }) {
  const { agent, owner, onDone } = props;
  const person = usePerson();
  const [run, { busy, error }] = useAction();
  const allowed = can(person.role, "pacts-wake-delivery") && (person.role === "approver" || person.role === "owner" || owner === person.id);
  if (!allowed) return null;
  return (
    <span class="actions">
      <button
        type="button"
        data-op="pacts-wake-delivery"
        disabled={busy}
        onClick={async () => {
          if (await run(() => api.POST("/admin/api/agents/{agent_id}/pact-delivery/wake", { params: { path: { agent_id: agent } } })))
            onDone(`Woke ${agent}'s webhook: deliveries resume with the next event.`);
        }}
      >
        {props.alone ? "Wake it" : `Wake it: ${agent}`}
      </button>
      <Alert text={error} />
    </span>
  );
}
