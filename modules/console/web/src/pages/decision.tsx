// Answering a pact decision in place: pick a choice, write your own words,
// or "Not needed"; then "Change answer" until the agent has read it (the
// server refuses a change after that, and says so).
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, useAction } from "../ui";

export interface Question {
  id: string;
  question: string;
  options: string[] | null;
}

type Answer = Schemas["PactAnswer"];
type AnswerBody = Schemas["PactAnswerInBody"];

const kindText: Record<Answer["answer_kind"], string> = {
  choice: "Your choice",
  own_words: "Your words",
  not_needed: "Not needed",
};

export function DecisionAnswer({
  decision,
  answered,
  onAnswered,
}: {
  decision: Question;
  answered?: Answer;
  onAnswered: (a: Answer) => void;
}) {
  const allowed = useCan("pacts-answer");
  const [editing, setEditing] = useState(!answered);
  const [words, setWords] = useState("");
  const [run, { busy, error }] = useAction();
  if (!allowed) return <p class="muted">An approver answers this.</p>;
  async function send(body: AnswerBody) {
    let got: Answer | undefined;
    const ok = await run(async () => {
      const r = await api.PUT("/admin/api/pact-decisions/{decision_id}/answer", {
        params: { path: { decision_id: decision.id } },
        body,
      });
      got = r.data;
      return r;
    });
    if (ok && got) {
      setEditing(false);
      setWords("");
      onAnswered(got);
    }
  }
  if (answered && !editing)
    return (
      <div class="answered">
        <p>
          <strong>{kindText[answered.answer_kind]}:</strong> {answered.answer_kind === "not_needed" ? "" : answered.answer}
        </p>
        <button type="button" onClick={() => setEditing(true)}>
          Change answer
        </button>
        <Alert text={error} />
      </div>
    );
  const wordsId = `words-${decision.id}`;
  return (
    <div class="answer">
      {decision.options && decision.options.length > 0 && (
        <fieldset>
          <legend>Pick a choice</legend>
          <div class="choices">
            {decision.options.map((o) => (
              <button type="button" key={o} disabled={busy} onClick={() => send({ choice: o })}>
                {o}
              </button>
            ))}
          </div>
        </fieldset>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (words.trim()) void send({ answer: words });
        }}
      >
        <label for={wordsId}>Your own words</label>
        <textarea id={wordsId} rows={2} maxLength={4000} value={words} onInput={(e) => setWords(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !words.trim()}>
            Send answer
          </button>
          <button type="button" disabled={busy} onClick={() => send({ not_needed: true })}>
            Not needed
          </button>
          {answered && (
            <button type="button" onClick={() => setEditing(false)}>
              Keep my answer
            </button>
          )}
        </div>
      </form>
      <Alert text={error} />
    </div>
  );
}

/** A decision as Needs you and the Pacts page list it. */
export function PactQuestionCard({
  q,
  answered,
  onAnswered,
}: {
  q: Schemas["PactQuestion"];
  answered?: Answer;
  onAnswered: (a: Answer) => void;
}) {
  return (
    <article class="card">
      <p class="kind">Pact decision</p>
      <h3>{q.question}</h3>
      <p class="meta">
        <a href={`/console/pacts/${q.pact_id}`}>{q.pact_name}</a> · {q.project_id} · asked by {q.agent} (
        {q.seat}) <Ago at={q.raised_at} />
      </p>
      <DecisionAnswer decision={q} answered={answered} onAnswered={onAnswered} />
    </article>
  );
}
