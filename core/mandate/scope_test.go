package mandate_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func TestParseBoardScope(t *testing.T) {
	for _, tt := range []struct {
		in              string
		action, project string
		ok              bool
	}{
		{"task.work@project:web", "task.work", "web", true},
		{"*@project:a1-b2", "*", "a1-b2", true},
		{"task.*@project:0x", "task.*", "0x", true},
		{"deploy.web@project:w-", "deploy.web", "w-", true},
		{"deploy@project:z9", "deploy", "z9", true}, // the last letter and digit
		{"@project:web", "", "", false},             // no action
		{"task@project:", "", "", false},            // no project
		{"task@project:-web", "", "", false},        // project starts with '-'
		{"task@project:Web", "", "", false},         // upper case
		{"task@project:web_1", "", "", false},       // underscore
		{"task@project:web x", "", "", false},       // whitespace
		{"ta sk@project:web", "", "", false},        // whitespace in action
		{"a@b@project:web", "", "", false},          // '@' in action
		{"task@projects:web", "", "", false},        // not the marker
		{"doc.read:customer_a", "", "", false},      // opaque
		{"task@project:web\n", "", "", false},       // trailing newline
		{"task\u00a0x@project:web", "", "", false},  // Unicode space
		{" task@project:web", "", "", false},        // whitespace first in action
		{"\x1ctask@project:web", "", "", false},     // U+001C, first of the ASCII separators
	} {
		t.Run(tt.in, func(t *testing.T) {
			action, project, ok := mandate.ParseBoardScope(tt.in)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.action, action)
			require.Equal(t, tt.project, project)
		})
	}
	require.Equal(t, "task.work@project:web", mandate.BoardScope("task.work", "web"))
}

func TestValidScope(t *testing.T) {
	for _, ok := range []string{"a", "task.work@project:web", "doc.read:customer_a", strings.Repeat("é", 200), "*"} {
		require.NoError(t, mandate.ValidScope(ok), ok)
	}
	for _, bad := range []string{"", strings.Repeat("x", 201), "a b", "a\tb", "a\nb", "a\u00a0b", "a\u2028b", "a\x1fb", "a\x1cb", " a", "\ta"} {
		err := mandate.ValidScope(bad)
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%q", bad)
		require.Equal(t, "invalid scope: "+bad, err.(*errs.Error).Message)
	}

	err := mandate.ValidScopes(nil)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Equal(t, "scope is empty", err.(*errs.Error).Message)
	err = mandate.ValidScopes([]string{"ok", "a b", "fine", ""})
	require.Equal(t, "invalid scope: a b, ", err.(*errs.Error).Message)
	require.NoError(t, mandate.ValidScopes([]string{"ok"}))
}

func TestActionCovers(t *testing.T) {
	for _, tt := range []struct {
		granted, needed string
		want            bool
	}{
		{"*", "anything", true},
		{"*", "", true},
		{"task.work", "task.work", true},
		{"task.work", "task.read", false},
		{"task.*", "task", true},
		{"task.*", "task.work", true},
		{"task.*", "task.x.y", true},
		{"task.*", "tasks", false},
		{"task.*", "taskwork", false},
		{"task.*", "taskforce.x", false},
		{"deploy.*", "deploy.web", true},
		{"task", "task.work", false},
		{"task.work", "task.*", false},
		{".*", ".x", true},
		{".*", "", true},
	} {
		require.Equal(t, tt.want, mandate.ActionCovers(tt.granted, tt.needed), "%s covers %s", tt.granted, tt.needed)
	}
}

func TestScopeCovers(t *testing.T) {
	for _, tt := range []struct {
		granted, needed string
		want            bool
	}{
		{"task.work@project:web", "task.work@project:web", true},
		{"task.*@project:web", "task.work@project:web", true},
		{"*@project:web", "deploy.web@project:web", true},
		{"task.*@project:web", "task.work@project:api", false}, // other project
		{"task.read@project:web", "task.work@project:web", false},
		{"*", "task.work@project:web", false},         // opaque never covers a board scope
		{"task.work@project:web", "task.work", false}, // nor the other way round
		{"*", "doc.read:customer_a", true},
		{"doc.*", "doc.read:customer_a", true},
		{"doc.read:customer_a", "doc.read:customer_b", false},
	} {
		require.Equal(t, tt.want, mandate.ScopeCovers(tt.granted, tt.needed), "%s covers %s", tt.granted, tt.needed)
	}
}

func TestAnyCoversAndUncovered(t *testing.T) {
	parent := []string{"task.read@project:web", "task.*@project:api", "doc.*"}
	require.True(t, mandate.AnyCovers(parent, "task.claim@project:api"))
	require.True(t, mandate.AnyCovers(parent, "doc.read:x"))
	require.False(t, mandate.AnyCovers(parent, "task.work@project:web"))
	require.False(t, mandate.AnyCovers(nil, "task.read@project:web"))

	require.Empty(t, mandate.Uncovered([]string{"task.read@project:web", "task.work@project:api"}, parent))
	require.Empty(t, mandate.Uncovered(nil, parent))
	require.Equal(t,
		[]string{"task.work@project:web", "deploy.web@project:api"},
		mandate.Uncovered([]string{"task.work@project:web", "task.read@project:web", "deploy.web@project:api"}, parent))
}
