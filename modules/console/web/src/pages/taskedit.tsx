// Edit an open task's title or body (board-edit-task): the log keeps the
// old text. Shown only to roles the server allows (roles.ts).
import { useState } from "preact/hooks";
import { api, type Task } from "../client";
import { useCan } from "../session";
import { Alert, useAction } from "../ui";
import { isOpen } from "./taskactions";

export function EditTask({ task, onDone }: { task: Task; onDone: (what: string) => void }) {
  const allowed = useCan("board-edit-task");
  const [title, setTitle] = useState(task.title);
  const [body, setBody] = useState(task.body ?? "");
  const [run, { busy, error }] = useAction();
  if (!allowed || !isOpen(task)) return null;
  return (
    <details>
      <summary>Edit the title or text</summary>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const change: { title?: string; body?: string } = {};
          if (title !== task.title) change.title = title;
          if (body !== (task.body ?? "")) change.body = body;
          const ok = await run(() => api.POST("/admin/api/tasks/{task_id}/edit", { params: { path: { task_id: task.id } }, body: change }));
          if (ok) onDone("Saved the task; the log keeps the old text.");
        }}
      >
        <label>
          Title
          <input type="text" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Text
          <textarea rows={6} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </label>
        <div class="actions">
          <button type="submit" class="primary" data-op="board-edit-task" disabled={busy}>
            Save task
          </button>
        </div>
        <Alert text={error} />
      </form>
    </details>
  );
}
