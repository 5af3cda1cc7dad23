package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConsoleTrustsAndRevokesARoot: the owner adds a trusted root for a
// person from Credentials, sees it listed, and revokes it only through a
// confirmation saying what it does; the board then holds it revoked. The
// export table lists each agent holding a live mandate.
func TestConsoleTrustsAndRevokesARoot(t *testing.T) {
	c := startConsoleBoard(t)
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	key := base64.RawURLEncoding.EncodeToString(pub)

	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/credentials")
	p.ExpectText("No trusted roots.")
	require.Equal(t, "code-web\tnot exported", p.Text(`table.exports tr[data-agent="code-web"]`))
	p.Fill("Public key", key)
	p.Fill("Person", "ana")
	p.Fill("Label", "Ana's laptop")
	p.Click("button", "Add key")
	p.ExpectText("Now trusting Ana's laptop's key.")
	p.ExpectText(key)
	var live int
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM trusted_roots WHERE human = 'ana' AND revoked_at IS NULL`).Scan(t.Context(), &live))
	require.Equal(t, 1, live)

	p.Click("button", "Revoke key")
	p.ExpectText("The board accepts no new credential issued under this key.")
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM trusted_roots WHERE human = 'ana' AND revoked_at IS NULL`).Scan(t.Context(), &live))
	require.Equal(t, 1, live, "the dialog only asks")
	p.ClickIn("dialog", "accepts no new credential", "button", "Revoke key")
	p.ExpectText("Stopped trusting Ana's laptop (ana)")
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM trusted_roots WHERE human = 'ana' AND revoked_at IS NULL`).Scan(t.Context(), &live))
	require.Zero(t, live)
	c.requireAdminAPIOnly()
}
