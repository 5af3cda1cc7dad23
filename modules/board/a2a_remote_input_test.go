package board_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/errs"
)

// A remote agent's card URL is an absolute https:// URL of at most 2000
// characters (docs/a2a.md, "Remote agents"): one of exactly 2000 is taken
// and one more is refused; https is taken whether or not private addresses
// are allowed, plain http only when they are.
func TestARemoteCardURLIsAnHTTPSURLOfAtMost2000Characters(t *testing.T) {
	const prefix = "https://agent.example.com/"
	longest := prefix + strings.Repeat("a", 2000-len(prefix))
	require.NoError(t, board.CheckRemoteCard(longest, false))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(board.CheckRemoteCard(longest+"a", false)))

	require.NoError(t, board.CheckRemoteCard(prefix+"card.json", false), "https with private addresses refused")
	require.NoError(t, board.CheckRemoteCard(prefix+"card.json", true), "https with private addresses allowed")
	require.NoError(t, board.CheckRemoteCard("http://agent.example.com/card.json", true))
	err := board.CheckRemoteCard("http://agent.example.com/card.json", false)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "card_url must use https")
}

// A remote agent's Authorization is one header value of at most 4000
// bytes (the admin API counts characters, so a value of two-byte
// characters reaches the board's own bound): one of exactly 4000 bytes is
// taken and sent with the card's read; one byte more is refused,
// invalid_request, reading no card and keeping the one set before.
func TestARemoteAuthorizationIsAtMost4000Bytes(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.A2AAllowPrivate = true })
	remote := newStreamingRemote(t, false)
	w.agent("remote-web", "a2a-remote", nil, "web")
	card := remote.URL + a2a.CardPath
	longest := "Bearer t" + strings.Repeat("é", (4000-len("Bearer t"))/2)
	require.Len(t, longest, 4000)
	got := w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+card+`", "authorization": "`+longest+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	n, auth := remote.got("card")
	require.Equal(t, 1, n)
	require.Equal(t, longest, auth)

	got = w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+card+`", "authorization": "`+longest+`t"}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
	require.Contains(t, got.Raw, "at most 4000 bytes")
	n, _ = remote.got("card")
	require.Equal(t, 1, n, "no card is read with an authorization refused")

	got = w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+card+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	_, auth = remote.got("card")
	require.Equal(t, longest, auth, "the one set before is kept")
}

// Naming a card is refused, reading no card, for an agent the board has
// not got: none of that name (not_found), one banned (not_found, as if
// gone), and when the database cannot read the agent (here a table it
// reads is gone) an internal error, not a claim that the agent does not
// exist.
func TestNamingARemoteCardRefusesAnAgentTheBoardCannotTake(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.A2AAllowPrivate = true })
	remote := newStreamingRemote(t, false)
	w.agent("remote-web", "a2a-remote", nil, "web")
	body := `{"card_url": "` + remote.URL + a2a.CardPath + `"}`

	got := w.Admin("ana", "PUT", "/agents/nosuch-web/a2a-remote", body)
	require.Equal(t, http.StatusNotFound, got.Status, got.Raw)
	require.Contains(t, got.Raw, "agent nosuch-web does not exist")

	w.Exec(`UPDATE agents SET status = 'banned' WHERE id = 'remote-web'`)
	got = w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", body)
	require.Equal(t, http.StatusNotFound, got.Status, got.Raw)
	require.Contains(t, got.Raw, "agent remote-web does not exist")

	w.Exec(`UPDATE agents SET status = 'active' WHERE id = 'remote-web'`)
	w.Exec(`ALTER TABLE agent_presence RENAME TO agent_presence_gone`)
	got = w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", body)
	require.Equal(t, http.StatusInternalServerError, got.Status, got.Raw)
	require.NotContains(t, got.Raw, "does not exist")
	n, _ := remote.got("card")
	require.Zero(t, n, "no card is read for an agent the board cannot take")
	require.Zero(t, w.Count(`SELECT count(*) FROM a2a_remotes`))
}
