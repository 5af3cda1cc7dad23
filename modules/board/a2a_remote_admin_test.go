package board_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// TestAnApproverNamesARemoteAgentsCardThroughTheAdminAPI: PUT
// /agents/{id}/a2a-remote reads the card at once and answers what the
// board will call (the card's name, its JSON-RPC interface, whether it
// streams); the remote is stored with its sealed credential and the
// operation's one entry is logged ok. The board's other tests write the
// remote's row directly, so this is the route's success.
func TestAnApproverNamesARemoteAgentsCardThroughTheAdminAPI(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.A2AAllowPrivate = true })
	remote := newFlakyRemote(t, 0)
	w.agent("remote-web", "a2a-remote", nil, "web")
	got := w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote",
		`{"card_url": "`+remote.URL+a2a.CardPath+`", "authorization": "Bearer s3cret-token"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "remote-web", got.Body["agent_id"])
	require.Equal(t, "Flaky painter", got.Body["name"])
	require.Equal(t, remote.URL+a2a.CardPath, got.Body["card_url"])
	require.NotEmpty(t, got.Body["interface_url"])
	require.NotContains(t, got.Raw, "s3cret-token", "the credential is never shown again")
	require.Equal(t, int32(1), remote.cards.Load(), "the card was read at once")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM a2a_remotes WHERE agent_id = 'remote-web' AND card_url = ?`,
		remote.URL+a2a.CardPath))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent.a2a_remote' AND outcome = 'ok'`))
}
