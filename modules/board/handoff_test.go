package board

import (
	"encoding/json"
	"strings"
	"testing"
)

// A structured result carries a handoff when its "handoff" key (any case)
// holds something: an empty object, list, string, zero, false or null is no
// handoff (BOARD-002).
func TestHandoffValues(t *testing.T) {
	for result, want := range map[string]bool{
		`{"handoff": {}}`: false, `{"handoff": {"done": "x"}}`: true,
		`{"handoff": []}`: false, `{"handoff": ["x"]}`: true,
		`{"handoff": 0}`: false, `{"handoff": 2}`: true,
		`{"handoff": false}`: false, `{"handoff": true}`: true,
		`{"handoff": null}`: false, `{"handoff": " \n"}`: false, `{"HandOff": "x"}`: true,
		`{"other": "x"}`: false, `[1]`: false,
	} {
		if got := hasHandoff(json.RawMessage(result)); got != want {
			t.Errorf("hasHandoff(%s) = %v, want %v", result, got, want)
		}
	}
}

// Removing the handoff section stops at the next heading of its level or
// above, and leaves no blank lines at either end.
func TestWithoutHandoffStopsAtTheNextHeading(t *testing.T) {
	for in, want := range map[string]string{
		"## Handoff\n- a\n## Next\nmore":       "## Next\nmore",
		"## Handoff\n- a\n# Top\nmore":         "# Top\nmore",
		"## Handoff\n- a\n### Inside\n- b":     "",
		"intro\n\n## Handoff\n- a\n\n## Next":  "intro\n\n## Next",
		"## Handoff\n- a\n\n\n## Next\nmore\n": "## Next\nmore",
	} {
		if got := withoutHandoff(in); got != want {
			t.Errorf("withoutHandoff(%q) = %q, want %q", in, got, want)
		}
	}
	if got := trimBlankLines("\n \n  x\ny \n\n"); got != "  x\ny" {
		t.Errorf("trimBlankLines = %q", got)
	}
}

// A report's result as stored: text as is, JSON as written, and no result
// (absent or null) as NULL, never the text "null".
func TestReportResultForms(t *testing.T) {
	for in, want := range map[string]string{``: "", `null`: "", `"done"`: "done", `{"a":1}`: `{"a":1}`} {
		if got := resultText(json.RawMessage(in)); got != want {
			t.Errorf("resultText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := string(resultJSON(nil)); got != "null" {
		t.Errorf("resultJSON(nil) = %q", got)
	}
	if got := string(resultJSON(json.RawMessage(`{"a":1}`))); got != `{"a":1}` {
		t.Errorf("resultJSON kept %q", got)
	}
	if nullJSON(nil) != nil || nullJSON(json.RawMessage(`null`)) != nil {
		t.Error("no result must be NULL")
	}
	if got := nullJSON(json.RawMessage(`"x"`)); got == nil || *got != `"x"` {
		t.Errorf("nullJSON(\"x\") = %v", got)
	}
}

// What a task stores of a result or a reason is redacted, and nothing
// stays nothing (NULL), never an empty text.
func TestStoredResultsAreRedactedAndNullStaysNull(t *testing.T) {
	if redactedJSON(nil) != nil || redactedText(nil) != nil {
		t.Fatal("NULL must stay NULL")
	}
	secret := "sk-ant-" + strings.Repeat("A1b2", 6)
	j := `{"note": "` + secret + `"}`
	if got := redactedJSON(&j); got == nil || strings.Contains(*got, secret) {
		t.Errorf("redactedJSON kept the secret: %v", got)
	}
	s := "key " + secret
	if got := redactedText(&s); got == nil || strings.Contains(*got, secret) {
		t.Errorf("redactedText kept the secret: %v", got)
	}
}

// A brief's detail: a structured report when the result holds one, else
// the text (the result's "text", or the result itself) without its
// Handoff section.
func TestBriefDetail(t *testing.T) {
	withReport := `{"report": {"greeting": "Hi", "sections": [{"title": "Done", "items": ["x"]}]}, "text": "ignored"}`
	if got := briefDetail(json.RawMessage(withReport)); got == "" || strings.Contains(got, "ignored") {
		t.Errorf("briefDetail(report) = %q", got)
	}
	for in, want := range map[string]string{
		`{"report": 5, "text": "sum\n## Handoff\n- a"}`: "sum",
		`{"text": "sum\n## Handoff\n- a"}`:              "sum",
		`"sum\n## Handoff\n- a"`:                        "sum",
	} {
		if got := briefDetail(json.RawMessage(in)); got != want {
			t.Errorf("briefDetail(%s) = %q, want %q", in, got, want)
		}
	}
}
