package mandate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pactboard/pact/core/mandate"
)

// FuzzScope checks the scope parser and the covering rules against each
// other on arbitrary input: a parsed board scope prints back as itself, a
// valid scope covers itself, an action is covered by exactly the patterns
// CoveringPatterns lists (the query that finds approval rules relies on
// it), and a child within its parent has nothing uncovered.
func FuzzScope(f *testing.F) {
	for _, s := range []string{"task.read@project:web", "*", "task.*@project:web", "deploy.web", "a.*", "",
		"x@project:", "a.b.c@project:p-1", "@project:web", "task read@project:web", "*@project:api"} {
		f.Add(s, "task.read@project:web")
	}
	f.Fuzz(func(t *testing.T, granted, needed string) {
		if action, project, ok := mandate.ParseBoardScope(granted); ok {
			if got := mandate.BoardScope(action, project); got != granted {
				t.Fatalf("ParseBoardScope(%q) = %q, %q; printed back %q", granted, action, project, got)
			}
		}
		if mandate.ValidScope(granted) == nil && !mandate.ScopeCovers(granted, granted) {
			t.Fatalf("valid scope %q does not cover itself", granted)
		}
		if strings.Contains(needed, "@") { // CoveringPatterns is about actions
			return
		}
		listed := slices.Contains(mandate.CoveringPatterns(needed), granted)
		if covers := mandate.ActionCovers(granted, needed); covers != listed {
			t.Fatalf("ActionCovers(%q, %q) = %v, but CoveringPatterns lists it: %v", granted, needed, covers, listed)
		}
		if len(mandate.Uncovered([]string{needed}, []string{needed})) != 0 && mandate.ValidScope(needed) == nil {
			t.Fatalf("%q is not within itself", needed)
		}
	})
}
