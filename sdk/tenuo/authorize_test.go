package tenuo

import (
	"strings"
	"testing"
)

// A leaf shaped like the board's exports: project pinned, task_id free,
// runs capped per call.
func exportedLeaf() *Payload {
	return &Payload{Type: Execution, Tools: map[string]ConstraintSet{
		"task.work": {Constraints: map[string]Constraint{
			"project": Exact("web"), "task_id": Wildcard(), "runs": AtMost(2),
			"stage": OneOf("dev", "test"),
		}},
	}}
}

func TestAuthorizeGrantsOnlyWhatTheLeafNames(t *testing.T) {
	ok := func() map[string]any {
		return map[string]any{"project": "web", "task_id": "t-1", "runs": int64(2), "stage": "dev"}
	}
	with := func(k string, v any) map[string]any {
		a := ok()
		if v == nil {
			delete(a, k)
		} else {
			a[k] = v
		}
		return a
	}
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
		want string // "" allowed, else part of the refusal
	}{
		{"valid call", "task.work", ok(), ""},
		{"valid at a float below the ceiling", "task.work", with("runs", 1.5), ""},
		{"wildcard argument absent", "task.work", with("task_id", nil), ""},
		{"tool not granted", "task.post", ok(), `tool "task.post" is not granted`},
		{"another project", "task.work", with("project", "api"), `argument "project": is not web`},
		{"over the ceiling", "task.work", with("runs", 2.000001), `argument "runs"`},
		{"a number as text", "task.work", with("runs", "1"), "not a number"},
		{"not one of", "task.work", with("stage", "prod"), "is not one of"},
		{"constrained argument missing", "task.work", with("project", nil), "constrained but missing"},
		{"unknown argument", "task.work", with("force", true), `argument "force" is not allowed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := exportedLeaf().Authorize(c.tool, c.args)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want a refusal containing %q", err, c.want)
			}
		})
	}
}

// A constraint type the authorizer does not understand refuses the call
// rather than being ignored, and an issuer warrant grants no call.
func TestAuthorizeFailsClosed(t *testing.T) {
	leaf := exportedLeaf()
	leaf.Tools["task.work"].Constraints["path"] = Pattern("/srv/*")
	err := leaf.Authorize("task.work", map[string]any{"project": "web", "runs": int64(1), "stage": "dev", "path": "/srv/a"})
	if err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("a Pattern constraint must refuse, got %v", err)
	}
	issuer := exportedLeaf()
	issuer.Type = Issuer
	if err := issuer.Authorize("task.work", map[string]any{"project": "web"}); err == nil {
		t.Fatal("an issuer warrant grants no call")
	}
}

func TestRangeString(t *testing.T) {
	lo, hi := 0.0, 40.0
	for r, want := range map[*Range]string{
		{}:                                       "(-inf, +inf)",
		{Max: &hi, MaxInclusive: true}:           "(-inf, 40]",
		{Min: &lo, Max: &hi, MinInclusive: true}: "[0, 40)",
	} {
		if got := r.String(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
