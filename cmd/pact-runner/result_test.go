package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A brief's structured report is the session's structured output only when
// it is an object with at least one section; anything else is no report.
func TestAReportIsAnObjectWithSections(t *testing.T) {
	sections := `{"sections":[{"title":"Done","body":"all"}]}`
	for _, c := range []struct {
		out  string
		want string
	}{
		{"", ""},
		{`{"sections":[]}`, ""},
		{`{"summary":"no sections"}`, ""},
		{`["a list"]`, ""},
		{`"a string"`, ""},
		{sections, sections},
	} {
		got := (&claudeResult{StructuredOutput: json.RawMessage(c.out)}).report()
		require.Equal(t, c.want, string(got), "structured output %q", c.out)
	}
	require.Nil(t, (*claudeResult)(nil).report(), "no Claude result, no report")
}

// A brief's result carries its text whole and, as its Handoff, the text
// from the Handoff heading on; a text without one is its own Handoff.
func TestABriefsHandoffStartsAtItsHeading(t *testing.T) {
	report := json.RawMessage(`{"sections":[{}]}`)
	got := briefResult("Looked at it.\n\n## Handoff\n- Done: looked", report)
	require.Equal(t, "Looked at it.\n\n## Handoff\n- Done: looked", got["text"])
	require.Equal(t, "## Handoff\n- Done: looked", got["handoff"])
	require.Equal(t, report, got["report"])
	got = briefResult("Looked at it, no heading.", nil)
	require.Equal(t, "Looked at it, no heading.", got["handoff"])
}
