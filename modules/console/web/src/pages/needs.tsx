// Needs you, the landing page: everything waiting on this person, oldest
// first — approvals, deferred tasks' questions and pact decisions — each
// answered in place. It refetches on every live needs-you event.
import { compareAsc } from "date-fns";
import { useContext, useState } from "preact/hooks";
import { api, type Schemas, type Task } from "../client";
import { LiveContext, useCan, usePerson } from "../session";
import { Ago } from "../time";
import { Status, useLoad } from "../ui";
import { PactQuestionCard } from "./decision";
import { ApprovalActions, ChangeTaskAnswer, ResumeForm } from "./taskactions";

type Question = Schemas["PactQuestion"];

type Item =
  | { kind: "approval"; at: string; task: Task }
  | { kind: "deferred"; at: string; task: Task }
  | { kind: "answered"; at: string; task: Task }
  | { kind: "decision"; at: string; q: Question };

/**
 * useDecisions reads the open pact decisions and, with include_answered,
 * the ones this person answered that the agent has not read yet: those
 * carry their answer and keep "Change answer" across reloads, and leave
 * the list once the agent has read them. An answer reloads the list.
 */
export function useDecisions(live: number) {
  const allowed = useCan("pacts-questions");
  const loaded = useLoad(
    () =>
      allowed
        ? api.GET("/admin/api/pact-decisions", { params: { query: { include_answered: true } } })
        : Promise.resolve({ data: { decisions: [] }, response: new Response() }),
    [allowed, live],
  );
  return { loaded, questions: loaded.data?.decisions ?? [], onAnswered: loaded.reload };
}

export function NeedsYou() {
  const live = useContext(LiveContext);
  const overview = useLoad(() => api.GET("/admin/api/overview"), [live]);
  const decisions = useDecisions(live);
  const me = usePerson().id;
  const [done, setDone] = useState("");
  const items: Item[] = [
    ...(overview.data?.pending_approvals ?? []).map((task): Item => ({ kind: "approval", at: task.updated_at, task })),
    ...(overview.data?.deferred ?? []).map((task): Item => ({ kind: "deferred", at: task.updated_at, task })),
    // This person's answers that the agent has not read: still changeable.
    ...(overview.data?.answered ?? [])
      .filter((a) => a.answered_by === me)
      .map((a): Item => ({ kind: "answered", at: a.answered_at, task: a.task })),
    ...decisions.questions.map((q): Item => ({ kind: "decision", at: q.raised_at, q })),
  ].sort((a, b) => compareAsc(new Date(a.at), new Date(b.at)));
  const finish = (what: string) => {
    setDone(what);
    overview.reload();
  };
  return (
    <section>
      <h1>Needs you</h1>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={overview} what="approvals and deferred tasks" />
      <Status loaded={decisions.loaded} what="pact decisions" />
      {items.length === 0 && !overview.loading && !decisions.loaded.loading && (
        <p class="empty">Nothing is waiting on you.</p>
      )}
      <ol class="cards">
        {items.map((it) => (
          <li key={`${it.kind}-${it.kind === "decision" ? it.q.id : it.task.id}`}>
            {it.kind === "decision" ? (
              <PactQuestionCard q={it.q} onAnswered={decisions.onAnswered} />
            ) : (
              <TaskCard item={it} onDone={finish} />
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

const kindLabel = {
  approval: "Approval",
  deferred: "Question from a deferred task",
  answered: "Answered: the agent has not read it yet",
};

function TaskCard({ item, onDone }: { item: Extract<Item, { task: Task }>; onDone: (what: string) => void }) {
  const t = item.task;
  const canAnswer = useCan(
    item.kind === "approval" ? "board-approve-task" : item.kind === "deferred" ? "board-resume-task" : "board-change-task-answer",
  );
  return (
    <article class="card">
      <p class="kind">{kindLabel[item.kind]}</p>
      <h3>
        <a href={`/console/tasks/${t.id}`}>{t.title}</a>
      </h3>
      <p class="meta">
        {t.project_id} · {t.action} · by {t.created_by} <Ago at={item.at} />
      </p>
      {item.kind !== "approval" && t.defer_reason && <blockquote>{t.defer_reason}</blockquote>}
      {item.kind === "approval" && t.needed_scope.length > 0 && (
        <p>
          Needs: <code>{t.needed_scope.join(", ")}</code>
        </p>
      )}
      {!canAnswer && <p class="muted">An approver answers this.</p>}
      {item.kind === "approval" && <ApprovalActions task={t} onDone={onDone} />}
      {item.kind === "deferred" && <ResumeForm task={t} onDone={onDone} />}
      {item.kind === "answered" && <ChangeTaskAnswer task={t} onDone={onDone} />}
    </article>
  );
}
