package board

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
)

const cutNote = "\n\n(cut here: the rest is in the remote task r1)"

// resultSize is the characters of the result fitResult's text and handoff
// make, as the task stores it.
func resultSize(t *testing.T, text, handoff string) int {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"text": text, "handoff": handoff, "remote_task_id": "r1"})
	require.NoError(t, err)
	return utf8.RuneCount(raw)
}

// A remote result too long for a task keeps as much as fits: three fifths
// of a task's result (60,000 characters) of its text and one fifth of its
// handoff, each saying where the rest is; a result that fits to the last
// character is kept so, not cut again.
func TestARemoteResultTooLongKeepsAsMuchAsFits(t *testing.T) {
	huge := strings.Repeat("a", 3<<20)
	text, handoff := fitResult(huge, strings.Repeat("b", 3<<20), "r1")
	require.Equal(t, huge[:MaxTaskResult*3/5]+cutNote, text)
	require.Equal(t, strings.Repeat("b", MaxTaskResult/5)+cutNote, handoff)

	// Quotes at the head of the text take two characters each in JSON:
	// enough of them make the result exactly a task's size.
	spare := MaxTaskResult - resultSize(t, text, handoff)
	require.Positive(t, spare)
	exact := strings.Repeat(`"`, spare) + huge
	text, handoff = fitResult(exact, strings.Repeat("b", 3<<20), "r1")
	require.Equal(t, MaxTaskResult, resultSize(t, text, handoff))
	require.Equal(t, exact[:MaxTaskResult*3/5]+cutNote, text, "a result of exactly a task's size is not cut again")
}

// clipText keeps a text of exactly n characters whole, without a note; one
// more is cut to n, saying where the rest is.
func TestClipTextKeepsExactlyNCharacters(t *testing.T) {
	require.Equal(t, "abc", clipText("abc", 3, "the remote task r1"))
	require.Equal(t, "abc"+cutNote, clipText("abcd", 3, "the remote task r1"))
	require.Equal(t, "ab", clipText("abc", 2, ""))
}

// A built handoff's Done line is the result's first line, whole up to 200
// characters; a longer one is cut to 199 and an ellipsis.
func TestABuiltHandoffTakesTheFirstLineUpTo200Characters(t *testing.T) {
	for _, c := range []struct{ line, done string }{
		{strings.Repeat("x", 200), strings.Repeat("x", 200)},
		{strings.Repeat("x", 201), strings.Repeat("x", 199) + "…"},
	} {
		out, done := outcomeOf(remoteTaskOf(a2a.StateCompleted, "", "result", c.line+"\nmore"), "remote-x", "")
		require.True(t, done)
		require.Contains(t, out.Result.(map[string]any)["handoff"], "- Done: "+c.done+"\n")
	}
}
