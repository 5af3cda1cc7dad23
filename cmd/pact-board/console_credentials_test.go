package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/tenuo"
)

// TestConsoleTrustsAndRevokesARoot: the owner adds a trusted root for a
// person from Credentials, sees it listed, and revokes it only through a
// confirmation saying what it does; the board then holds it revoked. With
// nothing imported under the key, the page says nothing of imported
// mandates. The export table lists each agent holding a live mandate.
func TestConsoleTrustsAndRevokesARoot(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
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
	p.ExpectText("No mandate imported under it.")
	var live int
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM trusted_roots WHERE human = 'ana' AND revoked_at IS NULL`).Scan(t.Context(), &live))
	require.Equal(t, 1, live)

	p.Click("button", "Revoke key")
	p.ExpectText("The board accepts no new credential issued under this key.")
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM trusted_roots WHERE human = 'ana' AND revoked_at IS NULL`).Scan(t.Context(), &live))
	require.Equal(t, 1, live, "the dialog only asks")
	p.ClickIn("dialog", "accepts no new credential", "button", "Revoke key")
	p.ExpectText("Stopped trusting Ana's laptop (ana)")
	require.Equal(t, "Stopped trusting Ana's laptop (ana).", p.Text("p.notice"), "no mandate was imported under the key, and the page says none")
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM trusted_roots WHERE human = 'ana' AND revoked_at IS NULL`).Scan(t.Context(), &live))
	require.Zero(t, live)
	c.requireAdminAPIOnly()
}

// withTenuoPlugin adds the credential-tenuo plugin, built from the tree, to
// the board's PACT_PLUGINS: what imports a Tenuo credential.
func withTenuoPlugin(t *testing.T) func(vars map[string]string) {
	return func(vars map[string]string) {
		t.Helper()
		bin := filepath.Join(vars["PACT_PLUGIN_DIR"], "credential-tenuo")
		build := exec.Command("go", "build", "-o", bin, "./plugins/credential-tenuo")
		build.Dir = filepath.Join("..", "..")
		out, err := build.CombinedOutput()
		require.NoError(t, err, "build the plugin: %s", out)
		b, err := os.ReadFile(bin)
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		var catalog []map[string]any
		require.NoError(t, json.Unmarshal([]byte(vars["PACT_PLUGINS"]), &catalog))
		// Credential plugins are pinned.
		catalog = append(catalog, map[string]any{"name": "tenuo", "kind": "credential", "binary": "credential-tenuo",
			"sha256": hex.EncodeToString(sum[:])})
		raw, err := json.Marshal(catalog)
		require.NoError(t, err)
		vars["PACT_PLUGINS"] = string(raw)
	}
}

// TestConsoleImportsATenuoCredential: the owner pastes into Credentials the
// warrant stack of Tenuo's own vectors (A.8) for code-web. It is refused,
// naming the untrusted key it is rooted at; the owner trusts that key for
// ana from the same page and pastes again; it is refused once more, as
// expired (the vectors date from 2024). The same chain renewed (A.8's first
// two links, signed again with the vectors' control plane and orchestrator
// seeds, valid now and granting task.post on web to the vectors' worker
// key, which is code-web's) is refused with a byte of its leaf signature
// flipped, then accepted: the page names the new root mandate, issued by
// ana and answering to the trusted key, and code-web posts a task under it.
// Every refusal leaves the form filled (the second paste is the first one,
// kept) and the board as it was. The key's card counts the mandate imported
// under it; revoking the key says first that it stops working, then that it
// no longer acts, and code-web is refused under it.
func TestConsoleImportsATenuoCredential(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	v := readTenuoVectors(t)
	a8 := v.block(t, "A.8", "**Base64")
	raw, err := tenuo.FromText(strings.Join(strings.Fields(a8), ""))
	require.NoError(t, err)
	chain, err := tenuo.DecodeStack(raw)
	require.NoError(t, err)
	require.Len(t, chain, 3)
	cpSeed, orchSeed, workerSeed := v.seed(t, "Control Plane"), v.seed(t, "Orchestrator"), v.seed(t, "Worker")
	cpKey := base64.RawURLEncoding.EncodeToString(chain[0].Payload.Issuer)

	// A.8's root and first link, renewed for today and for the board.
	now := time.Now()
	tools := map[string]tenuo.ConstraintSet{"task.post": {Constraints: map[string]tenuo.Constraint{"project": tenuo.Exact("web")}}}
	renew := func(s *tenuo.Signed, seed []byte, parent *tenuo.Signed) *tenuo.Signed {
		p := *s.Payload
		p.Tools, p.IssuedAt, p.ExpiresAt = tools, uint64(now.Add(-time.Minute).Unix()), uint64(now.Add(time.Hour).Unix())
		if parent != nil {
			p.ParentHash = parent.Hash()
		}
		out, err := tenuo.Sign(&p, seed)
		require.NoError(t, err, "the vectors' seed signs for %x", s.Payload.Issuer)
		return out
	}
	root := renew(chain[0], cpSeed, nil)
	leaf := renew(chain[1], orchSeed, root)
	require.Equal(t, ed25519.NewKeyFromSeed(workerSeed).Public(), leaf.Payload.Holder, "the vectors' worker holds A.8's second link")
	renewed, err := tenuo.EncodeStack([]*tenuo.Signed{root, leaf})
	require.NoError(t, err)
	tampered := bytes.Clone(renewed)
	tampered[len(tampered)-5] ^= 0x01 // inside the leaf's signature

	c := startConsoleBoardWith(t, withTenuoPlugin(t))
	_, err = c.d.ExecContext(t.Context(), `INSERT INTO agent_keys (agent_id, org_id, kid, public_key)
		SELECT id, org_id, 'kidcodewebworker', ? FROM agents WHERE id = 'code-web'`, []byte(leaf.Payload.Holder))
	require.NoError(t, err)
	count := func(q string) int {
		var n int
		require.NoError(t, c.d.NewRaw(q).Scan(t.Context(), &n))
		return n
	}
	const imported = `SELECT count(*) FROM mandates WHERE format = 'tenuo'`
	const importedOK = `SELECT count(*) FROM entries WHERE action = 'admin.credential.import' AND outcome = 'ok'`
	mandates := count(`SELECT count(*) FROM mandates`)
	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	unchanged := func(why string) {
		t.Helper()
		require.Zero(t, count(imported), why)
		require.Zero(t, count(importedOK), why)
		require.Equal(t, mandates, count(`SELECT count(*) FROM mandates`), why)
		require.NotContains(t, p.Text("main"), "Imported:", why)
	}

	p.Goto(c.public + "/console/credentials")
	p.ExpectText("No trusted roots.")

	// The vectors' stack as printed, line breaks and all.
	p.Fill("Agent", "code-web")
	p.Fill("Credential", a8)
	p.Click("button", "Import credential")
	p.ExpectText("rooted at " + cpKey + ", which is not a trusted root")
	unchanged("a stack under an untrusted key imports nothing")

	// The key the refusal named, trusted for ana.
	p.Fill("Public key", cpKey)
	p.Fill("Person", "ana")
	p.Fill("Label", "Tenuo control plane")
	p.Click("button", "Add key")
	p.ExpectText("Now trusting Tenuo control plane's key.")
	p.Click("button", "Import credential")
	p.ExpectText("warrant " + chain[0].Payload.IDString() + " in the stack has expired")
	unchanged("an expired stack imports nothing")

	p.Fill("Credential", tenuo.Text(tampered))
	p.Click("button", "Import credential")
	p.ExpectText("the warrant stack does not verify")
	unchanged("a stack with a flipped byte imports nothing")

	p.Fill("Credential", tenuo.Text(renewed))
	p.Click("button", "Import credential")
	p.ExpectText("Imported: code-web holds the root mandate ")
	var m struct {
		ID        string   `bun:"id"`
		Issuer    string   `bun:"issuer"`
		Scope     []string `bun:"scope,array"`
		Principal string   `bun:"issuer_principal"`
		External  string   `bun:"external_id"`
	}
	require.NoError(t, c.d.NewRaw(`SELECT id, issuer, scope, issuer_principal, external_id FROM mandates
		WHERE format = 'tenuo' AND holder = 'code-web' AND parent_id IS NULL AND revoked_at IS NULL`).Scan(t.Context(), &m))
	p.ExpectText("Imported: code-web holds the root mandate " + m.ID + ".")
	require.Equal(t, "ana", m.Issuer, "issued by the person the trusted root stands for")
	require.Equal(t, []string{"task.post@project:web"}, m.Scope)
	require.Equal(t, cpKey, m.Principal, "it answers to the trusted key")
	require.Equal(t, leaf.Payload.IDString(), m.External)
	require.Equal(t, 1, count(importedOK))
	c.agent.ok("pact_post", map[string]any{"project_id": "web", "title": "Under the imported credential", "mandate_id": m.ID})

	p.ExpectText("1 mandate imported under it.")

	// Revoking the key says, and does, that the import stops acting.
	p.Click("button", "Revoke key")
	p.ExpectText("and the mandate imported under it stops working: its holder is refused.")
	p.ClickIn("dialog", "accepts no new credential", "button", "Revoke key")
	p.ExpectText("Stopped trusting Tenuo control plane (ana). 1 mandate imported under it no longer acts.")
	out, refused := c.agent.call("pact_post", map[string]any{"project_id": "web", "title": "After the key is revoked", "mandate_id": m.ID})
	require.True(t, refused, "the imported mandate went with its trusted root: %v", out)
	require.Contains(t, fmt.Sprint(out), "no longer a trusted root")
	c.requireAdminAPIOnly()
}
