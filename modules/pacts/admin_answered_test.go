package pacts_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/modules/pacts"
)

// questions lists "Questions for you" as person as, with include_answered
// when answered, by id.
func (f *fixture) questions(t *testing.T, as string, answered bool) map[string]map[string]any {
	t.Helper()
	path := "/pact-decisions"
	if answered {
		path += "?include_answered=true"
	}
	out := map[string]map[string]any{}
	for _, q := range ok(t, f.adm(as, "GET", path, nil))["decisions"].([]any) {
		out[q.(map[string]any)["id"].(string)] = q.(map[string]any)
	}
	return out
}

// With include_answered, "Questions for you" keeps a decision the person
// answered, with the answer, until the raising agent reads it (get_pact);
// the answer changes until then. Without it the list is open decisions
// only, as before; another approver's unread answers are not listed.
func TestAnsweredDecisionsStayListedUntilTheAgentReads(t *testing.T) {
	f := setup(t)
	f.Person("ana", "apu", identity.Approver)
	id := f.pact(t)
	mine := f.raise(t, "wanda", id, "Ship Friday?", "Yes", "No")
	open := f.raise(t, "bram", id, "Which colour?", "Red")
	theirs := f.raise(t, "bram", id, "Who writes the copy?", "Bram")
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+mine+"/answer", map[string]any{"answer": "Yes — after the review ✅"}))
	ok(t, f.adm("apu", "PUT", "/pact-decisions/"+theirs+"/answer", map[string]any{"choice": "Bram"}))

	got := f.questions(t, "ana", true)
	require.Len(t, got, 2)
	q := got[mine]
	require.Equal(t, "Yes — after the review ✅", q["answer"])
	require.Equal(t, pacts.AnswerOwnWords, q["answer_kind"])
	require.Equal(t, "ana", q["answered_by"])
	require.NotEmpty(t, q["answered_at"])
	require.NotContains(t, got[open], "answer", "an open decision has no answer fields")
	require.Contains(t, f.questions(t, "apu", true), theirs)
	require.NotContains(t, f.questions(t, "apu", true), mine, "only the caller's own answers")
	require.Equal(t, []string{open}, keys(f.questions(t, "ana", false)), "without include_answered: open ones only")

	// Changed in place while unread; another seat's reading changes nothing.
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+mine+"/answer", map[string]any{"choice": "No"}))
	_, err := f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	q = f.questions(t, "ana", true)[mine]
	require.Equal(t, "No", q["answer"])
	require.Equal(t, pacts.AnswerChoice, q["answer_kind"])

	// The raising agent reads it: gone from the list, and final.
	_, err = f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	require.Equal(t, []string{open}, keys(f.questions(t, "ana", true)))
	refused(t, f.adm("ana", "PUT", "/pact-decisions/"+mine+"/answer", map[string]any{"choice": "Yes"}), http.StatusForbidden, "forbidden")
	refused(t, f.adm("vic", "GET", "/pact-decisions?include_answered=true", nil), http.StatusForbidden, "forbidden")
	f.VerifyLog()
}

func keys(m map[string]map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
