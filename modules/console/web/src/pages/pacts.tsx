// Pacts: the Jobs list (with a "New" mark kept per browser, the New pact
// dialog and Wake it on a stuck job), the questions for you (older ones
// folded), and one pact's seats, zones, decisions, thread and record, with
// invite, remove, pause, wake and close, and the person's own seat
// (pactsetup.tsx).
import { useContext, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, type Schemas } from "../client";
import { LiveContext, useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, EntryTable, Status, useAction, useLoad } from "../ui";
import { DecisionAnswer, PactQuestionCard } from "./decision";
import { useDecisions } from "./needs";
import { InviteSeat, NewPact, RemoveSeat, WakeIt, YourSeat } from "./pactsetup";

type Job = Schemas["PactJob"];
type Message = Schemas["MessageView"];
type Entry = Schemas["Record"];

// The "New" mark: per pact, the latest message number this browser has
// seen on the pact's page. A pact never opened here, or with a message
// since, is new. localStorage keeps it per browser, as the issue asks.
const seenKey = "pact-console.seen";

function seen(): Record<string, string> {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(seenKey) ?? "{}");
    return v && typeof v === "object" ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function markSeen(pact: string, latest: string): void {
  try {
    localStorage.setItem(seenKey, JSON.stringify({ ...seen(), [pact]: latest }));
  } catch {
    // Storage refused (private mode, full): the mark just stays.
  }
}

function isNew(job: Job, marks: Record<string, string>): boolean {
  const latest = job.latest_message?.number ?? "";
  return marks[job.id] === undefined || marks[job.id] !== latest;
}

// Questions raised before this are folded away (issue 31: "older questions
// (past two weeks) folded").
const foldAfter = 14 * 24 * 3600 * 1000;

export function PactList() {
  const live = useContext(LiveContext);
  const jobs = useLoad(() => api.GET("/admin/api/pacts"), [live]);
  const agents = useLoad(() => api.GET("/admin/api/agents"), []);
  const decisions = useDecisions(live);
  const canAnswer = useCan("pacts-questions");
  const [done, setDone] = useState("");
  const marks = seen();
  const owner = (agent: string) => agents.data?.agents.find((a) => a.id === agent)?.owner;
  const now = Date.now();
  const recent = decisions.questions.filter((q) => now - new Date(q.raised_at).getTime() <= foldAfter);
  const older = decisions.questions.filter((q) => now - new Date(q.raised_at).getTime() > foldAfter);
  const card = (q: (typeof recent)[number]) => (
    <li key={q.id}>
      <PactQuestionCard q={q} onAnswered={decisions.onAnswered} />
    </li>
  );
  return (
    <section>
      <h1>Pacts</h1>
      <NewPact />
      <p class="notice" role="status">
        {done}
      </p>
      {canAnswer && (
        <>
          <h2>Questions for you</h2>
          <Status loaded={decisions.loaded} what="questions" />
          {decisions.questions.length === 0 && decisions.loaded.data && <p class="empty">No question is waiting.</p>}
          <ol class="cards">{recent.map(card)}</ol>
          {older.length > 0 && (
            <details class="older">
              <summary>
                {older.length} older {older.length === 1 ? "question" : "questions"}, raised more than two weeks ago
              </summary>
              <ol class="cards">{older.map(card)}</ol>
            </details>
          )}
        </>
      )}
      <h2>Jobs</h2>
      <Status loaded={jobs} what="pacts" />
      {jobs.data && jobs.data.pacts.length === 0 && <p class="empty">No pacts yet.</p>}
      <ul class="rows">
        {(jobs.data?.pacts ?? []).map((j) => (
          <li key={j.id} class={j.closed ? "closed" : ""}>
            <a href={`/console/pacts/${j.id}`}>
              {j.name}
              {isNew(j, marks) && <span class="badge new">New</span>}
            </a>
            <span class="meta">
              {j.closed && <span class="badge">Closed</span>}
              {j.stuck && <span class="badge warn">Stuck</span>}
              {j.open_decisions > 0 && <span class="badge warn">{j.open_decisions} open decisions</span>} {j.project_id} ·{" "}
              {j.seats.map((s) => s.key).join(" ")} · {j.latest_message ? <>last message <Ago at={j.latest_message.at} /></> : "no messages yet"}
            </span>
            {j.purpose && <span class="purpose">{j.purpose}</span>}
            {j.stuck && j.stuck_sentence && <span class="warn">{j.stuck_sentence}</span>}
            {j.stuck &&
              (j.stuck_agents ?? []).map((a) => (
                <WakeIt
                  key={a}
                  agent={a}
                  owner={owner(a)}
                  alone={(j.stuck_agents ?? []).length === 1}
                  onDone={(what) => {
                    setDone(what);
                    jobs.reload();
                  }}
                />
              ))}
          </li>
        ))}
      </ul>
      <Changes live={live} onDone={setDone} />
    </section>
  );
}

type Change = Schemas["Change"];

/** What a change touched, in a few words, from its logged arguments. */
function touched(c: Change): string {
  const p = (c.entry.payload ?? {}) as Record<string, unknown>;
  const bits = [p.seat ?? p.key, typeof p.pact_id === "string" ? "pact " + p.pact_id.slice(0, 8) : undefined];
  return bits.filter((b): b is string => typeof b === "string" && b !== "").join(" · ") || "—";
}

/**
 * The name of a change's Undo, told apart from every other Undo on the
 * page: the change's log entry number (#N, as the Log page numbers it)
 * and what the write changed (a zone with the version it made, as the
 * pact's page shows it; a handshake note; a pause). Two writes of one
 * zone by one agent differ in both the number and the version. Who wrote
 * it is the row's Agent.
 */
function undoLabel(c: Change): string {
  const p = (c.entry.payload ?? {}) as Record<string, unknown>;
  const seat = typeof p.seat === "string" ? p.seat : "";
  let what: string = c.entry.action;
  if (c.entry.action === "update_pact_section" && seat)
    what = typeof p.version === "number" ? `version ${p.version} of zone ${seat}` : `zone ${seat}`;
  else if (c.entry.action === "update_pact_handshake" && seat) what = `handshake note of ${seat}`;
  else if (c.entry.action === "set_helper_paused" && typeof p.key === "string") what = `pause of ${p.key}`;
  return `Undo #${c.entry.id}: ${what}`;
}

/**
 * "What the agents changed this week" (docs/pacts.md, "Undo"): newest
 * first, with who said yes, and Undo where the change can be undone, after
 * a confirmation that says what it will do.
 */
function Changes({ live, onDone }: { live: number; onDone: (what: string) => void }) {
  const changes = useLoad(() => api.GET("/admin/api/pacts/changes", { params: { query: { limit: 50 } } }), [live]);
  const canUndo = useCan("pacts-undo-change");
  const [run, { busy, error }] = useAction();
  const rows = changes.data?.changes ?? [];
  return (
    <>
      <h2>What the agents changed this week</h2>
      <Status loaded={changes} what="the changes" />
      {changes.data && rows.length === 0 && <p class="empty">No agent changed anything this week.</p>}
      <Alert text={error} />
      {rows.length > 0 && (
        <table class="changes">
          <caption>The agents' changes of the last seven days, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Agent</th>
              <th scope="col">Tool</th>
              <th scope="col">What it changed</th>
              <th scope="col">Who said yes</th>
              <th scope="col">Undo</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => {
              const pact = (c.entry.payload as Record<string, unknown> | null)?.pact_id;
              return (
                <tr key={c.entry.id}>
                  <td>
                    <Ago at={c.entry.at} />
                  </td>
                  <td>{c.entry.actor}</td>
                  <td>{c.entry.action}</td>
                  <td>{typeof pact === "string" ? <a href={`/console/pacts/${pact}`}>{touched(c)}</a> : touched(c)}</td>
                  <td>{c.said_yes || "nobody needed to"}</td>
                  <td>
                    {c.undo && canUndo ? (
                      <ConfirmButton
                        label={undoLabel(c)}
                        op="pacts-undo-change"
                        disabled={busy}
                        title={`${undoLabel(c)}?`}
                        effect={<p>{`Undo ${c.undo}.`}</p>}
                        confirm="Undo the change"
                        onConfirm={async () => {
                          let did = "";
                          const undone = await run(async () => {
                            const r = await api.POST("/admin/api/pacts/changes/{entry_id}/undo", {
                              params: { path: { entry_id: c.entry.id } },
                            });
                            did = r.data?.did ?? "";
                            return r;
                          });
                          if (undone) {
                            onDone(did);
                            changes.reload();
                          }
                        }}
                      />
                    ) : (
                      <span class="meta">{c.undo ? "an approver can undo it" : c.no_undo}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}

export function PactDetail() {
  const { params } = useRoute();
  const id = params.id ?? "";
  const live = useContext(LiveContext);
  const got = useLoad(async () => {
    const r = await api.GET("/admin/api/pacts/{pact_id}", { params: { path: { pact_id: id } } });
    const msgs = r.data?.pact.messages ?? [];
    if (r.data) markSeen(id, msgs[msgs.length - 1]?.number ?? "");
    return r;
  }, [id, live]);
  const [done, setDone] = useState("");
  const pact = got.data?.pact;
  const finish = (what: string) => {
    setDone(what);
    got.reload();
  };
  return (
    <section>
      <p>
        <a href="/console/pacts">← Pacts</a>
      </p>
      <Status loaded={got} what="the pact" />
      <p class="notice" role="status">
        {done}
      </p>
      {pact && got.data && (
        <>
          <h1>
            {pact.name} {pact.closed_at && <span class="badge">Closed</span>}
          </h1>
          <p class="meta">
            {pact.project_id} · started by {pact.created_by} <Ago at={pact.created_at} />
            {pact.closed_at && (
              <>
                {" "}
                · closed <Ago at={pact.closed_at} />
              </>
            )}
          </p>
          {pact.purpose && <Purpose text={pact.purpose} />}
          {!pact.closed_at && <CloseButton pactId={pact.id} name={pact.name} onDone={finish} />}
          {pact.rules && (
            <details>
              <summary>Rules</summary>
              <pre class="body">{pact.rules}</pre>
            </details>
          )}

          <h2>Seats</h2>
          <ul class="rows">
            {(pact.seats ?? []).map((s) => (
              <li key={s.key}>
                <span>
                  <strong>{s.key}</strong> {s.display_name} {s.you && <span class="badge">you</span>}
                </span>
                <span class="meta">
                  <span class={`badge seat-${s.state}`}>{s.state}</span> {s.prefix}
                  {s.handshake && <> · {s.handshake}</>}
                </span>
                {!pact.closed_at && (
                  <div class="actions">
                    <SeatControls pactId={pact.id} seat={s} onDone={finish} />
                    <RemoveSeat pactId={pact.id} seat={s} seats={pact.seats ?? []} onDone={finish} />
                  </div>
                )}
              </li>
            ))}
          </ul>
          {!pact.closed_at && <InviteSeat pactId={pact.id} project={pact.project_id} seats={pact.seats ?? []} onDone={finish} />}
          {!pact.closed_at &&
            (pact.seats ?? [])
              .filter((s) => s.you)
              .map((s) => (
                <YourSeat
                  key={`${s.key}-${s.state}`}
                  pactId={pact.id}
                  seat={s}
                  zone={(pact.sections ?? []).find((z) => z.key === s.key)?.body ?? ""}
                  onDone={finish}
                />
              ))}

          <h2>Decisions</h2>
          {(pact.decisions ?? []).length === 0 && <p class="empty">No decisions.</p>}
          <ol class="cards">
            {(pact.decisions ?? []).map((d) => (
              <li key={d.id}>
                <article class="card">
                  <h3>{d.question}</h3>
                  <p class="meta">
                    {d.seat} asked <Ago at={d.raised_at} />
                    {d.answered_at && (
                      <>
                        {" "}
                        · answered by {d.answered_by} <Ago at={d.answered_at} />
                      </>
                    )}
                  </p>
                  {d.answer_kind ? (
                    <p>
                      <strong>{d.answer_kind === "not_needed" ? "Not needed" : "Answer"}:</strong>{" "}
                      {d.answer_kind === "not_needed" ? "" : d.answer}
                    </p>
                  ) : (
                    !pact.closed_at && <DecisionAnswer decision={d} onAnswered={() => finish("Answered.")} />
                  )}
                </article>
              </li>
            ))}
          </ol>

          <h2>Zones</h2>
          {(pact.sections ?? []).length === 0 && <p class="empty">No zones written yet.</p>}
          {(pact.sections ?? []).map((z) => (
            <article class="zone" key={z.key}>
              <h3>{z.key}</h3>
              <p class="meta">
                version {z.version}
                {z.updated_at && (
                  <>
                    {" "}
                    · <Ago at={z.updated_at} />
                  </>
                )}
              </p>
              <pre class="body">{z.body}</pre>
              {(z.refused_writes ?? []).length > 0 && (
                <details>
                  <summary>Refused writes</summary>
                  <ul>
                    {(z.refused_writes ?? []).map((r) => (
                      <li key={`${r.by}-${r.at}`}>
                        {r.by} <Ago at={r.at} />: <code>{r.code}</code>
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </article>
          ))}

          <Thread pactId={pact.id} latest={pact.messages ?? []} nextBefore={got.data.next_before} count={pact.message_count} />
          <PactRecord pactId={pact.id} live={live} />
        </>
      )}
    </section>
  );
}

// A purpose longer than this, or than four lines, shows its start and
// Show all.
const purposeShown = 280;

/** Purpose shows a pact's purpose, a long one folded behind Show all. */
function Purpose({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const lines = text.split("\n");
  const long = text.length > purposeShown || lines.length > 4;
  if (!long) return <p class="purpose">{text}</p>;
  const start = lines.slice(0, 4).join("\n").slice(0, purposeShown).trimEnd();
  return (
    <div>
      <p class="purpose" id="pact-purpose">
        {all ? text : `${start}…`}
      </p>
      <button type="button" class="link" aria-expanded={all} aria-controls="pact-purpose" onClick={() => setAll(!all)}>
        {all ? "Show less" : "Show all"}
      </button>
    </div>
  );
}

function CloseButton({ pactId, name, onDone }: { pactId: string; name: string; onDone: (what: string) => void }) {
  const allowed = useCan("pacts-close");
  const [run, { busy, error }] = useAction();
  if (!allowed) return null;
  return (
    <div class="actions">
      <ConfirmButton
        label="Close pact"
        op="pacts-close"
        danger
        disabled={busy}
        title={`Close “${name}”?`}
        effect={<p>The pact stays readable but accepts no more writes from any seat, and leaves the open-pact count. This cannot be undone.</p>}
        confirm="Close the pact"
        onConfirm={async () => {
          if (await run(() => api.POST("/admin/api/pacts/{pact_id}/close", { params: { path: { pact_id: pactId } } })))
            onDone("Closed.");
        }}
      />
      <Alert text={error} />
    </div>
  );
}

function SeatControls({ pactId, seat, onDone }: { pactId: string; seat: Schemas["SeatView"]; onDone: (what: string) => void }) {
  const canPause = useCan("pacts-pause-seat");
  const canWake = useCan("pacts-wake-seat");
  const [run, { busy, error }] = useAction();
  const path = { params: { path: { pact_id: pactId, seat: seat.key } } };
  if (seat.state === "joined" && canPause)
    return (
      <div class="actions">
        <ConfirmButton
          label={`Pause ${seat.key}`}
          op="pacts-pause-seat"
          disabled={busy}
          title={`Pause ${seat.key}?`}
          effect={<p>{`${seat.display_name}'s writes to this pact are refused until the seat is woken.`}</p>}
          onConfirm={async () => {
            if (await run(() => api.POST("/admin/api/pacts/{pact_id}/seats/{seat}/pause", path))) onDone(`Paused ${seat.key}.`);
          }}
        />
        <Alert text={error} />
      </div>
    );
  if (seat.state === "paused" && canWake)
    return (
      <div class="actions">
        <button
          type="button"
          data-op="pacts-wake-seat"
          disabled={busy}
          onClick={async () => {
            if (await run(() => api.POST("/admin/api/pacts/{pact_id}/seats/{seat}/wake", path))) onDone(`Woke ${seat.key}.`);
          }}
        >
          Wake {seat.key}
        </button>
        <Alert text={error} />
      </div>
    );
  return null;
}

/** The thread: the latest page from the pact, older pages on request. */
function Thread({ pactId, latest, nextBefore, count }: { pactId: string; latest: Message[]; nextBefore: number; count: number }) {
  const [older, setOlder] = useState<Message[]>([]);
  const [before, setBefore] = useState(nextBefore);
  const [run, { busy, error }] = useAction();
  const [forLatest, setForLatest] = useState(latest);
  if (forLatest !== latest) {
    // A refetch of the pact (live, or after an action) starts paging anew.
    setForLatest(latest);
    setOlder([]);
    setBefore(nextBefore);
  }
  async function more() {
    await run(async () => {
      const r = await api.GET("/admin/api/pacts/{pact_id}/messages", {
        params: { path: { pact_id: pactId }, query: { before, limit: 50 } },
      });
      if (r.data) {
        const page = r.data.messages;
        setOlder((o) => [...page, ...o]);
        setBefore(r.data.next_before);
      }
      return r;
    });
  }
  const messages = [...older, ...latest];
  return (
    <>
      <h2>Thread</h2>
      <p class="meta">
        {messages.length} of {count} messages, oldest first
      </p>
      {before > 0 && (
        <button type="button" disabled={busy} onClick={more}>
          Show older messages
        </button>
      )}
      <Alert text={error} />
      {messages.length === 0 && <p class="empty">No messages yet.</p>}
      <ol class="thread">
        {messages.map((m) => (
          <li key={m.cursor}>
            <p class="meta">
              <strong>{m.number}</strong> {m.seat} ({m.author}) <Ago at={m.at} />
              {m.reply_to && <> · reply to {m.reply_to}</>} · {m.status}
            </p>
            <p class="msg">{m.body}</p>
          </li>
        ))}
      </ol>
    </>
  );
}

/** The record: the pact's log entries, newest first, paged. */
function PactRecord({ pactId, live }: { pactId: string; live: number }) {
  const first = useLoad(
    () => api.GET("/admin/api/pacts/{pact_id}/record", { params: { path: { pact_id: pactId }, query: { limit: 50 } } }),
    [pactId, live],
  );
  const [older, setOlder] = useState<Entry[]>([]);
  const [before, setBefore] = useState<number | undefined>();
  const [run, { busy, error }] = useAction();
  const [forFirst, setForFirst] = useState(first.data);
  if (forFirst !== first.data) {
    setForFirst(first.data);
    setOlder([]);
    setBefore(undefined);
  }
  const next = before ?? first.data?.next_before ?? 0;
  async function more() {
    await run(async () => {
      const r = await api.GET("/admin/api/pacts/{pact_id}/record", {
        params: { path: { pact_id: pactId }, query: { before: next, limit: 50 } },
      });
      if (r.data) {
        const page = r.data.entries;
        setOlder((o) => [...o, ...page]);
        setBefore(r.data.next_before);
      }
      return r;
    });
  }
  const entries = [...(first.data?.entries ?? []), ...older];
  return (
    <>
      <h2>Record</h2>
      <Status loaded={first} what="the record" />
      {first.data && entries.length === 0 && <p class="empty">Nothing recorded yet.</p>}
      {entries.length > 0 && (
        <EntryTable caption="The pact's record, newest first" entries={entries} />
      )}
      {next > 0 && (
        <button type="button" disabled={busy} onClick={more}>
          Show older entries
        </button>
      )}
      <Alert text={error} />
    </>
  );
}
