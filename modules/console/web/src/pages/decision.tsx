// Answering a pact decision in place: pick a choice, write your own words,
// or "Not needed"; then "Change answer" until the agent has read it. The
// answer shown is the server's (GET /pact-decisions?include_answered), so
// it survives a reload; the server refuses a change once the agent has
// read it, and says so.
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
/** What an answer shows: the server's list and the answering call both carry it. */
type Given = Pick<Answer, "answer_kind" | "answer">;
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
  answered?: Given;
  onAnswered: (a: Answer) => void;
}) {
  const allowed = useCan("pacts-answer");
  // sent is this tab's latest answer, shown until the list reloads with it.
  const [sent, setSent] = useState<Given>();
  const [editing, setEditing] = useState(false);
  const given = sent ?? answered;
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
      setSent(got);
      onAnswered(got);
    }
  }
  if (given && !editing)
    return (
      <div class="answered">
        <p>
          <strong>{kindText[given.answer_kind]}:</strong> {given.answer_kind === "not_needed" ? "" : given.answer}
        </p>
        <button type="button" data-op="pacts-answer" onClick={() => setEditing(true)}>
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
              <button type="button" key={o} data-op="pacts-answer" disabled={busy} onClick={() => send({ choice: o })}>
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
          <button type="submit" class="primary" data-op="pacts-answer" disabled={busy || !words.trim()}>
            Send answer
          </button>
          <button type="button" data-op="pacts-answer" disabled={busy} onClick={() => send({ not_needed: true })}>
            Not needed
          </button>
          {given && (
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

/**
 * A decision as Needs you and the Pacts page list it: open, or answered by
 * this person and not yet read by the agent (then with the answer).
 */
export function PactQuestionCard({ q, onAnswered }: { q: Schemas["PactQuestion"]; onAnswered: (a: Answer) => void }) {
  const answered = q.answer_kind && q.answer !== undefined ? { answer_kind: q.answer_kind, answer: q.answer } : undefined;
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
