// What a person can do to a task, each shown only to roles the server
// allows (roles.ts) and only in a status where it applies. Destructive
// actions confirm first and say what they will do.
import { useState } from "preact/hooks";
import { api, type Task } from "../client";
import { useCan } from "../session";
import { Alert, ConfirmButton, useAction } from "../ui";

const open = new Set<Task["status"]>(["submitted", "working", "input_required", "auth_required"]);

export function isOpen(t: Task): boolean {
  return open.has(t.status);
}

/** Approve or reject a task waiting for approval (status auth_required). */
export function ApprovalActions({ task, onDone }: { task: Task; onDone: (what: string) => void }) {
  const canApprove = useCan("board-approve-task");
  const canReject = useCan("board-reject-task");
  const [run, { busy, error }] = useAction();
  const path = { params: { path: { task_id: task.id } } };
  if (task.status !== "auth_required" || !(canApprove || canReject)) return null;
  return (
    <div class="actions">
      {canApprove && (
        <button
          type="button"
          class="primary"
          data-op="board-approve-task"
          disabled={busy}
          onClick={async () => {
            if (await run(() => api.POST("/admin/api/tasks/{task_id}/approve", path))) onDone(`Approved “${task.title}”.`);
          }}
        >
          Approve
        </button>
      )}
      {canReject && (
        <ConfirmButton
          label="Reject"
          op="board-reject-task"
          danger
          disabled={busy}
          title={`Reject “${task.title}”?`}
          effect={<p>The task becomes rejected and is not worked on; its delegated mandate is revoked. This cannot be undone.</p>}
          onConfirm={async () => {
            if (await run(() => api.POST("/admin/api/tasks/{task_id}/reject", path))) onDone(`Rejected “${task.title}”.`);
          }}
        />
      )}
      <Alert text={error} />
    </div>
  );
}

/** Answer a deferred task's question and put it back on the board. */
export function ResumeForm({ task, onDone }: { task: Task; onDone: (what: string) => void }) {
  const allowed = useCan("board-resume-task");
  const [answer, setAnswer] = useState(task.answer ?? "");
  const [run, { busy, error }] = useAction();
  if (!allowed || !task.deferred || !isOpen(task)) return null;
  const id = `resume-${task.id}`;
  async function resume(body: { answer?: string }) {
    const ok = await run(() =>
      api.POST("/admin/api/tasks/{task_id}/resume", { params: { path: { task_id: task.id } }, body }),
    );
    if (ok) onDone(`Put “${task.title}” back on the board.`);
  }
  return (
    <form
      class="answer"
      onSubmit={(e) => {
        e.preventDefault();
        if (answer.trim()) void resume({ answer });
      }}
    >
      <label for={id}>Your answer</label>
      <textarea id={id} rows={2} maxLength={8000} value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="primary" data-op="board-resume-task" disabled={busy || !answer.trim()}>
          Answer and resume
        </button>
        <button type="button" data-op="board-resume-task" disabled={busy} onClick={() => resume({ answer: "Not needed" })}>
          Not needed
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}

/**
 * ChangeTaskAnswer shows the answer a person gave on resuming a task and
 * "Change answer" while the agent that asked has not read it; the server
 * refuses a change after that, and says so.
 */
export function ChangeTaskAnswer({ task, onDone }: { task: Task; onDone: (what: string) => void }) {
  const allowed = useCan("board-change-task-answer");
  const [editing, setEditing] = useState(false);
  const [answer, setAnswer] = useState(task.answer ?? "");
  const [run, { busy, error }] = useAction();
  const id = `change-${task.id}`;
  if (!editing)
    return (
      <div class="answered">
        <p>
          <strong>Your answer:</strong> {task.answer}
        </p>
        {allowed && (
          <button type="button" data-op="board-change-task-answer" onClick={() => setEditing(true)}>
            Change answer
          </button>
        )}
        <Alert text={error} />
      </div>
    );
  return (
    <form
      class="answer"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!answer.trim()) return;
        const ok = await run(() =>
          api.POST("/admin/api/tasks/{task_id}/answer", { params: { path: { task_id: task.id } }, body: { answer } }),
        );
        if (ok) {
          setEditing(false);
          onDone(`Changed the answer to “${task.title}”.`);
        }
      }}
    >
      <label for={id}>Your new answer</label>
      <textarea id={id} rows={2} maxLength={8000} value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="primary" data-op="board-change-task-answer" disabled={busy || !answer.trim()}>
          Save answer
        </button>
        <button type="button" disabled={busy} onClick={() => setEditing(false)}>
          Keep the answer
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}
