package kerneltest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// who answers the person the Admin API signed in.
type who struct{}

func (who) Name() string { return "who" }

type whoOut struct {
	Body struct {
		ID string `json:"id"`
	}
}

func (who) Register(h *kernel.Host) error {
	huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-approve", Method: http.MethodGet, Path: "/who"}, identity.Approver),
		func(ctx context.Context, _ *struct{}) (*whoOut, error) {
			out := &whoOut{}
			out.Body.ID = kernel.AdminPerson(ctx).ID
			return out, nil
		})
	return nil
}

// The harness's own contract: people sign in over the real issuer with the
// role they were given, agents reach the board over real MCP with their
// own token, and the log of what the fixtures did verifies.
func TestAWorldSignsPeopleInAndConnectsAgents(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{}, who{})
	w.Office()
	w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NotEmpty(t, w.Root("code-web"))

	require.Equal(t, http.StatusUnauthorized, w.Admin("", "GET", "/who", "").Status)
	r := w.Admin("val", "GET", "/who", "")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, "val", r.Body["id"])
	r = w.Admin("vic", "GET", "/who", "")
	require.Equal(t, http.StatusForbidden, r.Status, "a viewer is below the operation's role: %s", r.Raw)

	tools, err := w.Session("code-web").ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Empty(t, tools.Tools, "no module registered a tool")

	w.SetToken("code-web", "pact_wrong")
	_, err = w.Connect("code-web")
	require.ErrorContains(t, err, "Unauthorized", "a wrong token is refused before MCP")
	require.Equal(t, 3, w.Count(`SELECT count(*) FROM projects`))
	w.VerifyLog()
}
