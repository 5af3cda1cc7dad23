package board

import (
	"encoding/json"
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
