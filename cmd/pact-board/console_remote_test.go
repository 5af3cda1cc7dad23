package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/seal"
)

// TestConsoleNamesARemoteAgentsCard: a remote A2A agent connects to
// nothing (docs/a2a.md, "Remote agents"), so hiring one in the console
// shows no setup code but the form that names its card. A card the board
// cannot read is refused, saying why, and stores nothing; a card it reads
// is saved, the console saying whom the board calls and how, with the
// Authorization header typed stored sealed. The agent's Manage has the
// same form, and no setup code to make.
func TestConsoleNamesARemoteAgentsCard(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoardWith(t, func(vars map[string]string) { vars["PACT_A2A_ALLOW_PRIVATE"] = "on" })
	ctx := context.Background()
	card := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != a2a.CardPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(a2a.AgentCard{Name: "Remote painter", Version: "1",
			SupportedInterfaces: []a2a.AgentInterface{{URL: "http://" + r.Host + "/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: a2a.Version}},
			DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}, Skills: []a2a.AgentSkill{}})
	}))
	t.Cleanup(card.Close)
	_, err := c.d.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, client, actions)
		VALUES ('default', 'painter', 'Painter', 'a2a-remote', '{task.read,task.work}')`)
	require.NoError(t, err)
	stored := func() int {
		var n int
		require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM a2a_remotes WHERE agent_id = 'painter-web'`).Scan(ctx, &n))
		return n
	}

	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/agents")
	p.ExpectText("Hire from a role")
	p.Select("Role", "painter")
	p.Select("Project", "web")
	p.Click("button", "Hire")
	p.ExpectText("Connect painter-web")
	connectPanel := p.Text(".connect")
	require.Contains(t, connectPanel, "Remote card")
	require.NotContains(t, connectPanel, "pact-connect", "nothing runs on a machine for a remote agent")
	require.NotContains(t, p.Text("body"), "The setup code is shown this once")

	p.Fill("Card URL", card.URL+"/nothing-here.json")
	p.Click("button", "Save painter-web's card")
	p.ExpectText("the board could not read the card at card_url")
	require.Zero(t, stored(), "a refused card stores nothing")

	p.Fill("Card URL", card.URL+a2a.CardPath)
	p.Fill("Authorization header (optional)", "Bearer console-secret")
	p.Click("button", "Save painter-web's card")
	p.ExpectText("painter-web is Remote painter, called at " + card.URL + "/rpc; the board follows its tasks by reading them every few seconds.")
	var sealed string
	require.NoError(t, c.d.NewRaw(`SELECT auth_header FROM a2a_remotes WHERE agent_id = 'painter-web'`).Scan(ctx, &sealed))
	require.True(t, strings.HasPrefix(sealed, seal.Prefix), "the header is stored sealed: %s", sealed)
	require.NotContains(t, sealed, "console-secret")
	var codes int
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM setup_codes WHERE agent_id = 'painter-web'`).Scan(ctx, &codes))
	require.Zero(t, codes, "no setup code was made for it")

	p.Goto(c.public + "/console/agents")
	p.Expand("Manage painter-web")
	p.ExpectText("Remote card")
	manage := p.Text("body")
	require.Contains(t, manage, "Save painter-web's card")
	require.NotContains(t, manage, "New setup code")
	c.requireAdminAPIOnly()
}
