package kerneltest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// counter is a module with one typed tool that counts the caller's
// projects in the database it runs on.
type counter struct{}

func (counter) Name() string { return "counter" }

type countIn struct{}

type countOut struct {
	Agent    string `json:"agent" jsonschema:"Who asked."`
	Projects int    `json:"projects" jsonschema:"How many projects the board has."`
}

func (counter) Register(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{Name: "count", Effect: kernel.Reads, Title: "Count", Description: "Count projects."},
		func(ctx context.Context, c *kernel.Call, _ countIn) (countOut, error) {
			out := countOut{Agent: c.AgentID}
			err := c.Tx.NewRaw(`SELECT count(*) FROM projects`).Scan(ctx, &out.Projects)
			return out, err
		})
}

// A Twin is a second process on the same database: its own kernel and hub,
// the same rows; and a World's Call checks each result against the output
// schema its tool declares.
func TestATwinSharesTheDatabaseAndCallsAreChecked(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{Events: true}, counter{})
	w.Office()
	w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.Equal(t, map[string]any{"agent": "code-web", "projects": 3.0}, w.OK("code-web", "count", nil))

	tw := w.Twin(counter{})
	require.NotSame(t, w.Hub, tw.Hub)
	require.NotSame(t, w.Kernel, tw.Kernel)
	w.Exec(`UPDATE projects SET name = 'Web' WHERE id = 'web'`)
	w.Project("ana", "docs", false)
	out, err := tw.Kernel.Tools().Call(context.Background(), "code-web", "count", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.Equal(t, countOut{Agent: "code-web", Projects: 4}, out)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM projects WHERE name = 'Web'`))
}
