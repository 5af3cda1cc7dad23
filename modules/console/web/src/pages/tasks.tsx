// Tasks: the list with filters and pages, and one task's trace (log
// entries, the mandate chain, messages) with what a person can do to it.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, type Task } from "../client";
import type { operations } from "../api";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, EntryTable, Status, useAction, useLoad, usePages } from "../ui";
import { ApprovalActions, ResumeForm, isOpen } from "./taskactions";
import { EditTask } from "./taskedit";

type Filters = NonNullable<operations["board-list-tasks"]["parameters"]["query"]>;
type TaskStatus = Task["status"];

const statuses: TaskStatus[] = [
  "submitted",
  "working",
  "input_required",
  "auth_required",
  "completed",
  "failed",
  "canceled",
  "rejected",
];

const statusText: Record<TaskStatus, string> = {
  submitted: "Submitted",
  working: "Working",
  input_required: "Waiting for input",
  auth_required: "Waiting for approval",
  completed: "Completed",
  failed: "Failed",
  canceled: "Canceled",
  rejected: "Rejected",
};

export function StatusBadge({ status }: { status: TaskStatus }) {
  return <span class={`badge s-${status}`}>{statusText[status]}</span>;
}

export function TaskList() {
  const [filters, setFilters] = useState<Filters>({ open: true });
  const projects = useLoad(() => api.GET("/admin/api/projects"), []);
  const tasks = useLoad(() => api.GET("/admin/api/tasks", { params: { query: filters } }), [JSON.stringify(filters)]);
  const [shown, pager, setPage] = usePages(tasks.data?.tasks ?? [], 25);
  function set(f: Filters) {
    setFilters(f);
    setPage(0);
  }
  return (
    <section>
      <h1>Tasks</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter tasks">
        <label>
          Status
          <select
            value={filters.status ?? ""}
            onChange={(e) => {
              const v = e.currentTarget.value;
              set({ ...filters, status: statuses.find((s) => s === v) });
            }}
          >
            <option value="">Any</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {statusText[s]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Project
          <select value={filters.project ?? ""} onChange={(e) => set({ ...filters, project: e.currentTarget.value || undefined })}>
            <option value="">Any</option>
            {(projects.data?.projects ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={filters.open ?? false}
            onChange={(e) => set({ ...filters, open: e.currentTarget.checked || undefined })}
          />
          Open only
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={filters.deferred ?? false}
            onChange={(e) => set({ ...filters, deferred: e.currentTarget.checked || undefined })}
          />
          Deferred only
        </label>
      </form>
      <Status loaded={tasks} what="tasks" />
      {tasks.data && tasks.data.tasks.length === 0 && <p class="empty">No task matches.</p>}
      {tasks.data && tasks.data.tasks.length >= 200 && (
        <p class="muted">The board lists the 200 most recently updated; narrow the filters to see older ones.</p>
      )}
      <ul class="rows">
        {shown.map((t) => (
          <li key={t.id}>
            <a href={`/console/tasks/${t.id}`}>{t.title || "(untitled)"}</a>
            <span class="meta">
              <StatusBadge status={t.status} />
              {t.deferred && <span class="badge">Deferred</span>} {t.project_id} · {t.assignee ?? t.delegate_to ?? "unheld"} · updated{" "}
              <Ago at={t.updated_at} />
            </span>
          </li>
        ))}
      </ul>
      {pager}
    </section>
  );
}

export function TaskDetail() {
  const { params } = useRoute();
  const id = params.id ?? "";
  const trace = useLoad(() => api.GET("/admin/api/tasks/{task_id}", { params: { path: { task_id: id } } }), [id]);
  const [done, setDone] = useState("");
  const finish = (what: string) => {
    setDone(what);
    trace.reload();
  };
  const t = trace.data?.task;
  return (
    <section>
      <p>
        <a href="/console/tasks">← Tasks</a>
      </p>
      <Status loaded={trace} what="the task" />
      <p class="notice" role="status">
        {done}
      </p>
      {t && trace.data && (
        <>
          <h1>{t.title || "(untitled)"}</h1>
          <p class="meta">
            <StatusBadge status={t.status} /> {t.deferred && <span class="badge">Deferred</span>} {t.project_id} · {t.action} ·
            created by {t.created_by} <Ago at={t.created_at} /> · updated <Ago at={t.updated_at} />
          </p>
          <dl class="facts">
            <dt>Held by</dt>
            <dd>{t.assignee ?? "nobody"}</dd>
            <dt>Delegated to</dt>
            <dd>{t.delegate_to ?? "nobody"}</dd>
            {t.needed_scope.length > 0 && (
              <>
                <dt>Needs</dt>
                <dd>
                  <code>{t.needed_scope.join(", ")}</code>
                </dd>
              </>
            )}
            {t.defer_reason && (
              <>
                <dt>Question</dt>
                <dd>{t.defer_reason}</dd>
              </>
            )}
            {t.answer && (
              <>
                <dt>Answer</dt>
                <dd>{t.answer}</dd>
              </>
            )}
          </dl>
          {t.body && <pre class="body">{t.body}</pre>}
          {t.result !== null && t.result !== undefined && (
            <details>
              <summary>Result</summary>
              <pre>{JSON.stringify(t.result, null, 2)}</pre>
            </details>
          )}
          <ApprovalActions task={t} onDone={finish} />
          <ResumeForm task={t} onDone={finish} />
          <TaskControls task={t} onDone={finish} />
          <EditTask key={t.updated_at} task={t} onDone={finish} />
          <MessageForm task={t} onDone={finish} />

          <h2>Messages</h2>
          {trace.data.messages.length === 0 && <p class="empty">No messages.</p>}
          <ol class="thread">
            {trace.data.messages.map((m) => (
              <li key={m.id}>
                <p class="meta">
                  {m.from_human ? `human:${m.from_human}` : `agent:${m.from_agent ?? "?"}`} → {m.to_agent ?? "people"}{" "}
                  <Ago at={m.created_at} /> {m.read_at ? "· read" : "· unread"}
                </p>
                <p class="msg">{m.body}</p>
              </li>
            ))}
          </ol>

          <h2>Mandate chain</h2>
          {trace.data.mandates.length === 0 && <p class="empty">No mandates of this organization in its chains.</p>}
          <ol class="chain">
            {trace.data.mandates.map((m) => (
              <li key={m.id}>
                <p>
                  <strong>
                    {m.issuer_kind}:{m.issuer} → {m.holder}
                  </strong>{" "}
                  (depth {m.depth}, {m.delegations_left} delegations left)
                </p>
                <p class="meta">
                  <code>{m.scope.join(", ")}</code> · expires <Ago at={m.expires_at} />
                  {m.revoked_at && (
                    <>
                      {" "}
                      · <strong>revoked</strong> <Ago at={m.revoked_at} />
                    </>
                  )}
                </p>
              </li>
            ))}
          </ol>

          <h2>Log</h2>
          {trace.data.entries.length === 0 && <p class="empty">No log entries.</p>}
          <EntryTable caption="The task's log entries, oldest first" entries={trace.data.entries} />
        </>
      )}
    </section>
  );
}

function TaskControls({ task, onDone }: { task: Task; onDone: (what: string) => void }) {
  const canAssign = useCan("board-assign-task");
  const canRelease = useCan("board-release-task");
  const canCancel = useCan("board-cancel-task");
  const agents = useLoad(
    () => (canAssign ? api.GET("/admin/api/agents") : Promise.resolve({ data: { agents: [] }, response: new Response() })),
    [canAssign],
  );
  const [agent, setAgent] = useState("");
  const [run, { busy, error }] = useAction();
  if (!isOpen(task)) return null;
  const path = { params: { path: { task_id: task.id } } };
  const unheld = !task.assignee;
  const choices = (agents.data?.agents ?? []).filter((a) => a.projects.includes(task.project_id));
  return (
    <div class="controls">
      {canAssign && unheld && (
        <form class="inline" onSubmit={(e) => e.preventDefault()}>
          <label>
            Assign to
            <select value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
              <option value="">nobody</option>
              {choices.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.id}
                </option>
              ))}
            </select>
          </label>
          <ConfirmButton
            label="Assign"
            op="board-assign-task"
            disabled={busy}
            title={`Assign “${task.title}”?`}
            effect={
              <p>
                {agent
                  ? `The task is delegated to ${agent}, whose to claim it is.`
                  : "The task is delegated to nobody: it waits on the board for an agent of its project."}
              </p>
            }
            onConfirm={async () => {
              if (await run(() => api.POST("/admin/api/tasks/{task_id}/assign", { ...path, body: { agent: agent || null } })))
                onDone(agent ? `Assigned to ${agent}.` : "Assigned to nobody.");
            }}
          />
        </form>
      )}
      <div class="actions">
        {canRelease && task.status === "working" && task.assignee && (
          <ConfirmButton
            label="Release"
            op="board-release-task"
            title={`Release “${task.title}”?`}
            effect={<p>{`${task.assignee} loses the task, which goes back on the board for any agent to claim.`}</p>}
            disabled={busy}
            onConfirm={async () => {
              if (await run(() => api.POST("/admin/api/tasks/{task_id}/release", path))) onDone("Released.");
            }}
          />
        )}
        {canCancel && (
          <ConfirmButton
            label="Cancel task"
            op="board-cancel-task"
            danger
            title={`Cancel “${task.title}”?`}
            effect={
              <p>
                The task is canceled and no one works on it again; its delegated mandates are revoked and its open subtasks
                canceled too. This cannot be undone.
              </p>
            }
            confirm="Cancel the task"
            disabled={busy}
            onConfirm={async () => {
              if (await run(() => api.POST("/admin/api/tasks/{task_id}/cancel", path))) onDone("Canceled.");
            }}
          />
        )}
      </div>
      <Alert text={error} />
    </div>
  );
}

function MessageForm({ task, onDone }: { task: Task; onDone: (what: string) => void }) {
  const allowed = useCan("board-message-task");
  const [body, setBody] = useState("");
  const [run, { busy, error }] = useAction();
  if (!allowed) return null;
  const id = `message-${task.id}`;
  return (
    <form
      class="answer"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!body.trim()) return;
        const ok = await run(() =>
          api.POST("/admin/api/tasks/{task_id}/message", { params: { path: { task_id: task.id } }, body: { body } }),
        );
        if (ok) {
          setBody("");
          onDone("Message sent.");
        }
      }}
    >
      <label for={id}>Message the agent</label>
      <textarea id={id} rows={2} maxLength={8000} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="primary" data-op="board-message-task" disabled={busy || !body.trim()}>
          Send message
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}
