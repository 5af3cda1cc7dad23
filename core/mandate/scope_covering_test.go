package mandate

import (
	"slices"
	"testing"
)

// CoveringPatterns lists exactly the patterns ActionCovers accepts for an
// action, so the query that matches approval rules with = ANY decides as
// ActionCovers would.
func TestCoveringPatternsAreExactlyWhatActionCovers(t *testing.T) {
	actions := []string{"task", "task.work", "task.work.deploy", "deploy.prod.eu", "x"}
	patterns := []string{"*", "task", "task.*", "task.work", "task.work.*", "task.work.deploy", "task.work.deploy.*",
		"deploy.*", "deploy.prod.*", "deploy.prod.eu", "deploy.prod.eu.*", "deploy", "x", "x.*", "tas.*", "task.w.*",
		"task.wor", "ta*", "*.work", "task.work.deploy.now"}
	for _, a := range actions {
		covering := CoveringPatterns(a)
		for _, p := range patterns {
			if got, want := slices.Contains(covering, p), ActionCovers(p, a); got != want {
				t.Errorf("pattern %q for action %q: in CoveringPatterns %v, ActionCovers %v", p, a, got, want)
			}
		}
		for _, p := range covering {
			if !ActionCovers(p, a) {
				t.Errorf("CoveringPatterns(%q) lists %q, which ActionCovers refuses", a, p)
			}
		}
	}
}
