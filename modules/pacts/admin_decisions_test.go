package pacts_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/modules/pacts"
)

// A person's answer is stored byte for byte (docs/pacts.md "Decisions"),
// and the agent reads it word for word.
func TestAPersonsAnswerIsStoredByteForByte(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Which headline?", "Short", "Long")
	words := "  ตกลง: ใช้หัวข้อสั้น ✅ — \"quoted\" \\ back\r\n\tsecond line  \n\n"
	got := ok(t, f.adm("ana", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"answer": words}))
	require.Equal(t, words, got["answer"])
	require.Equal(t, "own_words", got["answer_kind"])
	answer, kind := f.storedAnswer(t, d)
	require.Equal(t, words, answer, "stored word for word")
	require.Equal(t, pacts.AnswerOwnWords, kind)

	view, err := f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	dec := view["decisions"].([]any)[0].(map[string]any)
	require.Equal(t, words, dec["answer"])
	require.Equal(t, "ana", dec["answered_by"])
	f.VerifyLog()
}

// An answer changes until the agent that raised it has read it; then it is
// final, and "Not needed" stores its words.
func TestAnAnswerChangesUntilTheAgentReadsIt(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Ship Friday?", "Yes", "No")
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Yes"}))
	answer, kind := f.storedAnswer(t, d)
	require.Equal(t, []string{"Yes", "choice"}, []string{answer, kind})

	// Another seat's reading does not make it final; the raiser's does.
	_, err := f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"not_needed": true}))
	answer, kind = f.storedAnswer(t, d)
	require.Equal(t, []string{pacts.NotNeededText, pacts.AnswerNotNeeded}, []string{answer, kind})

	_, err = f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	msg := refused(t, f.adm("ana", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"answer": "Actually yes"}),
		http.StatusForbidden, "forbidden")
	require.Contains(t, msg, "the agent has read the answer; post in the pact instead")
	answer, _ = f.storedAnswer(t, d)
	require.Equal(t, pacts.NotNeededText, answer)
}

// Only an owner or approver answers; a choice is one of the options as
// offered; one answer per request.
func TestOnlyRulersAnswerAndAChoiceIsOffered(t *testing.T) {
	f := setup(t)
	f.Person("ana", "apu", identity.Approver)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Colour?", "Red", "Blue")
	refused(t, f.adm("vic", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Red"}), http.StatusForbidden, "forbidden")
	refused(t, f.adm("apu", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "red"}), http.StatusBadRequest, "invalid_request")
	refused(t, f.adm("apu", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Red", "not_needed": true}),
		http.StatusBadRequest, "invalid_request")
	refused(t, f.adm("apu", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{}), http.StatusBadRequest, "invalid_request")
	answer, _ := f.storedAnswer(t, d)
	require.Empty(t, answer)
	got := ok(t, f.adm("apu", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Blue"}))
	require.Equal(t, "apu", got["answered_by"])
	refused(t, f.adm("apu", "PUT", "/pact-decisions/00000000-0000-0000-0000-000000000000/answer", map[string]any{"choice": "Blue"}),
		http.StatusNotFound, "not_found")
}

// The database refuses an answer written off the person-side path, even
// by a statement that names a real approver.
func TestTheDatabaseRefusesAnAnswerOffThePersonPath(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Go?", "Go")
	_, err := f.DB.ExecContext(context.Background(), `UPDATE pact_decisions SET answer = 'Go', answer_kind = 'choice',
		answered_by = 'ana', answered_at = now() WHERE id = ?`, d)
	require.ErrorContains(t, err, "only a person answers, through the Admin API")
	answer, _ := f.storedAnswer(t, d)
	require.Empty(t, answer)
}

// "Questions for you": the organization's open decisions, oldest first,
// with the agent by name and how long it has waited; for rulers only.
func TestQuestionsForYouListOpenDecisionsOldestFirst(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	first := f.raise(t, "wanda", id, "First?", "A")
	second := f.raise(t, "bram", id, "Second?", "B")
	answered := f.raise(t, "bram", id, "Third?", "C")
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+answered+"/answer", map[string]any{"choice": "C"}))
	got := ok(t, f.adm("ana", "GET", "/pact-decisions", nil))["decisions"].([]any)
	require.Len(t, got, 2)
	q := got[0].(map[string]any)
	require.Equal(t, first, q["id"])
	require.Equal(t, "wanda", q["agent"])
	require.Equal(t, "Launch", q["pact_name"])
	require.GreaterOrEqual(t, q["waited_seconds"], 0.0)
	require.Equal(t, second, got[1].(map[string]any)["id"])
	refused(t, f.adm("vic", "GET", "/pact-decisions", nil), http.StatusForbidden, "forbidden")
}
