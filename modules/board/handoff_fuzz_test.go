package board

import (
	"encoding/json"
	"testing"
)

// FuzzHandoff checks the handoff check against the code that removes a
// handoff on arbitrary text: a closing text result has a handoff exactly
// when its text has the heading, removing the section leaves no heading the
// check would see, and removing it twice is removing it once.
func FuzzHandoff(f *testing.F) {
	for _, s := range []string{"## Handoff\n- Done: x", "done", "# handoff", "### Handoff\n\n## Next\nmore",
		"text\n## Handoff\n- a\n## Handoff\n- b", "   ## handoff", "#handoff", "##  Handoffs", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Skip("not a JSON string")
		}
		if got, want := hasHandoff(raw), handoffHeading.MatchString(s); got != want {
			t.Fatalf("hasHandoff(%q) = %v, the heading says %v", s, got, want)
		}
		without := withoutHandoff(s)
		if handoffHeading.MatchString(without) {
			t.Fatalf("withoutHandoff(%q) = %q still has a handoff heading", s, without)
		}
		if again := withoutHandoff(without); again != without {
			t.Fatalf("withoutHandoff is not idempotent on %q: %q then %q", s, without, again)
		}
		var obj map[string]any
		_ = json.Unmarshal([]byte(`{"handoff": `+string(raw)+`}`), &obj)
		if hasHandoff(json.RawMessage(`{"handoff": `+string(raw)+`}`)) != truthy(obj["handoff"]) {
			t.Fatalf("an object's handoff %q is judged unlike its value", s)
		}
	})
}
