// Overview: the organization at a glance, as pictures with their numbers
// beside them (issue 31, "Pictures"): tasks by state, tasks per day
// (completed, failed, waiting on people), agents online, and the budgets
// nearest their limit. Charts are plain SVG, each with a title for screen
// readers and a table of the same numbers.
import { useId } from "preact/hooks";
import { api, type Schemas } from "../client";
import { Status, useLoad } from "../ui";
import { UsageBar } from "./mandates";

type Overview = Schemas["Overview"];
type Mandate = Schemas["MandateView"];

// The order a task moves through; anything else after these.
const stateOrder = ["submitted", "working", "input_required", "auth_required", "completed", "failed", "canceled", "rejected"];
const stateName: Record<string, string> = {
  submitted: "Open",
  working: "Working",
  input_required: "Needs input",
  auth_required: "Waiting for approval",
  completed: "Completed",
  failed: "Failed",
  canceled: "Canceled",
  rejected: "Rejected",
};

export function Overview() {
  const overview = useLoad(() => api.GET("/admin/api/overview"), []);
  const agents = useLoad(() => api.GET("/admin/api/agents"), []);
  const mandates = useLoad(() => api.GET("/admin/api/mandates"), []);
  const o = overview.data;
  return (
    <section>
      <h1>Overview</h1>
      <Status loaded={overview} what="the overview" />
      {o?.halted && (
        <p class="error" role="alert">
          Every agent is halted: their calls are refused until the halt is lifted in Settings.
        </p>
      )}
      {o && (
        <>
          <Agents o={o} agents={agents.data?.agents} />
          <States o={o} />
          <Days o={o} />
        </>
      )}
      <h2>Budgets nearest their limit</h2>
      <Status loaded={mandates} what="mandates" />
      {mandates.data && <Budgets mandates={mandates.data.mandates} />}
    </section>
  );
}

function Agents({ o, agents }: { o: Overview; agents?: Schemas["Agent"][] }) {
  const online = agents?.filter((a) => a.online).length;
  return (
    <>
      <h2>Agents</h2>
      <dl class="facts stats">
        <dt>Online now</dt>
        <dd class="agents-online">{online === undefined ? "…" : online}</dd>
        <dt>Seen in the last hour</dt>
        <dd>{o.active_agents}</dd>
        <dt>Active · paused · banned</dt>
        <dd>
          {o.agents_by_status.active ?? 0} · {o.agents_by_status.paused ?? 0} · {o.agents_by_status.banned ?? 0}
        </dd>
      </dl>
    </>
  );
}

/** States draws the open tasks and those changed in the last 7 days, by state. */
function States({ o }: { o: Overview }) {
  const counts = new Map<string, number>();
  for (const c of o.tasks) counts.set(c.status, (counts.get(c.status) ?? 0) + c.count);
  const rows = [...counts.entries()].sort(
    ([a], [b]) => (stateOrder.indexOf(a) + 1 || 99) - (stateOrder.indexOf(b) + 1 || 99),
  );
  const max = Math.max(1, ...rows.map(([, n]) => n));
  const title = useId();
  const barH = 22;
  const height = rows.length * (barH + 8) + 4;
  return (
    <>
      <h2>Tasks by state</h2>
      <p class="meta">Open tasks, and tasks changed in the last 7 days.</p>
      {rows.length === 0 ? (
        <p class="empty">No tasks.</p>
      ) : (
        <div class="chart-pair">
          <svg class="chart" role="img" aria-labelledby={title} viewBox={`0 0 320 ${height}`} preserveAspectRatio="xMinYMin meet">
            <title id={title}>
              Tasks by state: {rows.map(([s, n]) => `${stateName[s] ?? s} ${n}`).join(", ")}
            </title>
            {rows.map(([s, n], i) => (
              <g key={s} transform={`translate(0 ${i * (barH + 8) + 2})`}>
                <text x="0" y={barH - 6} class="chart-label">
                  {stateName[s] ?? s}
                </text>
                <rect x="150" y="0" height={barH} width={Math.max(2, (n / max) * 140)} class={`bar s-${s}`} />
              </g>
            ))}
          </svg>
          <div class="table">
            <table class="states">
              <caption>Tasks by state</caption>
              <thead>
                <tr>
                  <th scope="col">State</th>
                  <th scope="col">Tasks</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(([s, n]) => (
                  <tr key={s} data-state={s}>
                    <th scope="row">{stateName[s] ?? s}</th>
                    <td>{n}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </>
  );
}

const series = [
  { key: "completed", name: "Completed" },
  { key: "failed", name: "Failed" },
  { key: "waiting", name: "Waiting on people" },
] as const;

/** Days draws the last 14 days: completed, failed and waiting on people. */
function Days({ o }: { o: Overview }) {
  const days = o.days;
  const max = Math.max(1, ...days.flatMap((d) => series.map((s) => d[s.key])));
  const title = useId();
  const w = 24;
  const gap = 6;
  const h = 120;
  const width = days.length * (w + gap) + 8;
  const short = (day: string) => day.slice(5);
  return (
    <>
      <h2>Tasks per day</h2>
      <p class="meta">The last {days.length} days (UTC). Waiting on people counts the tasks still waiting, by the day they began to.</p>
      <ul class="legend" aria-hidden="true">
        {series.map((s) => (
          <li key={s.key}>
            <span class={`swatch d-${s.key}`} /> {s.name}
          </li>
        ))}
      </ul>
      <svg class="chart days-chart" role="img" aria-labelledby={title} viewBox={`0 0 ${width} ${h + 30}`} preserveAspectRatio="xMinYMin meet">
        <title id={title}>
          Tasks per day over the last {days.length} days:{" "}
          {days
            .filter((d) => d.completed + d.failed + d.waiting > 0)
            .map((d) => `${d.day}: ${d.completed} completed, ${d.failed} failed, ${d.waiting} waiting on people`)
            .join("; ") || "none"}
        </title>
        <line x1="0" x2={width} y1={h} y2={h} class="axis" />
        {days.map((d, i) => (
          <g key={d.day} transform={`translate(${i * (w + gap) + 4} 0)`}>
            {series.map((s, j) => {
              const bh = (d[s.key] / max) * (h - 10);
              return <rect key={s.key} x={j * (w / 3)} y={h - bh} width={w / 3} height={bh} class={`bar d-${s.key}`} />;
            })}
            {i % 2 === days.length % 2 ? null : (
              <text x={w / 2} y={h + 16} class="chart-label" text-anchor="middle">
                {short(d.day)}
              </text>
            )}
          </g>
        ))}
      </svg>
      <div class="table">
          <table class="days">
            <caption>Tasks per day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th scope="col" key={s.key}>
                    {s.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.day} data-day={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{d.completed}</td>
                  <td>{d.failed}</td>
                  <td>{d.waiting}</td>
                </tr>
              ))}
            </tbody>
          </table>
      </div>
    </>
  );
}

/** Budgets lists the five limits nearest their ceiling, of live mandates. */
function Budgets({ mandates }: { mandates: Mandate[] }) {
  const near = mandates
    .flatMap((m) =>
      Object.entries(m.limits)
        .filter(([, limit]) => limit > 0)
        .map(([key, limit]) => ({ m, key, limit, used: m.usage[key] ?? 0 })),
    )
    .sort((a, b) => b.used / b.limit - a.used / a.limit || (a.m.holder < b.m.holder ? -1 : 1))
    .slice(0, 5);
  if (near.length === 0) return <p class="empty">No live mandate has a limit.</p>;
  return (
    <ol class="budgets">
      {near.map((b) => (
        <li key={`${b.m.id}:${b.key}`}>
          <p class="meta">
            <strong>{b.m.holder}</strong>, {b.m.parent_id ? "delegated mandate" : "root mandate"} ({Math.round((b.used / b.limit) * 100)}%)
          </p>
          <ul class="usage">
            <UsageBar name={b.key} used={b.used} limit={b.limit} />
          </ul>
        </li>
      ))}
    </ol>
  );
}
