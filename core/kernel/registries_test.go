package kernel_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
)

// A resource template is registered only with a template, a name and a
// reader, and once.
func TestAResourceIsRegisteredOnlyWhole(t *testing.T) {
	read := func(context.Context, string, string, map[string]string) (string, error) { return "{}", nil }
	good := kernel.Resource{URITemplate: "pact://projects/{project_id}/context/{key}", Name: "Project note", Title: "Project note",
		Description: "One note.", MIMEType: "application/json", Read: read}
	k := kernel.New(kernel.Deps{})
	var refusals []string
	require.NoError(t, k.Register(moduleFunc{"notes", func(h *kernel.Host) error {
		require.NoError(t, h.Resource(good))
		for _, bad := range []kernel.Resource{
			{Name: "No template", Read: read},
			{URITemplate: "pact://a/{x}", Read: read},
			{URITemplate: "pact://b/{x}", Name: "No reader"},
			good,
		} {
			err := h.Resource(bad)
			require.Error(t, err, "%+v", bad)
			refusals = append(refusals, err.Error())
		}
		return nil
	}}))
	require.Equal(t, []string{
		`resource "" needs a URI template, a name and a reader`,
		`resource "pact://a/{x}" needs a URI template, a name and a reader`,
		`resource "pact://b/{x}" needs a URI template, a name and a reader`,
		`resource pact://projects/{project_id}/context/{key} is registered twice`,
	}, refusals)
}

// Each tool with a Wait phase is a channel a stop must reach ("mcp:" and
// its name); a tool without one is not.
func TestEveryWaitingToolIsAChannel(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	w := &waitTool{}
	require.NoError(t, k.Register(moduleFunc{"tools", func(h *kernel.Host) error {
		if err := h.Tool(freezeTool()); err != nil {
			return err
		}
		return h.Tool(w.tool())
	}}))
	var names []string
	for _, c := range k.Channels() {
		names = append(names, c.Name)
		require.Equal(t, kernel.AgentAudience, c.Audience)
	}
	require.Equal(t, []string{"mcp:demo_wait"}, names)
}

// AddTool registers the typed tool with the host, and returns TypedTool's
// refusal of a spec it cannot build.
func TestAddToolRegistersWithTheHost(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	var refused error
	require.NoError(t, k.Register(moduleFunc{"paint", func(h *kernel.Host) error {
		if err := kernel.AddTool(h, kernel.ToolSpec{Name: "demo_typed", Effect: kernel.Reads, Title: "Typed", Description: "Typed."},
			func(context.Context, *kernel.Call, paintOut) (paintOut, error) { return paintOut{}, nil }); err != nil {
			return err
		}
		refused = kernel.AddTool(h, kernel.ToolSpec{Name: "demo_untyped", Effect: kernel.Reads, Title: "Untyped", Description: "Untyped."},
			func(context.Context, *kernel.Call, int) (int, error) { return 0, nil })
		return nil
	}}))
	require.Error(t, refused)
	var names []string
	for _, tool := range k.Tools().List() {
		names = append(names, tool.Name)
	}
	require.Contains(t, names, "demo_typed")
	require.NotContains(t, names, "demo_untyped")
}

// The time the board gives a client to send a whole request is the one
// docs/security.md ("7. Caps") states.
func TestTheRequestReadTimeoutIsTheDocumentedOne(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	require.NoError(t, err)
	require.Equal(t, 30*time.Second, kernel.MaxRequestRead)
	require.True(t, strings.Contains(string(raw), "within 30 s\n  (`ReadTimeout`, `kernel.MaxRequestRead`"),
		"docs/security.md states the read timeout as %s", kernel.MaxRequestRead)
}
