package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/mandate"
)

// pactVerify builds cmd/pact-verify, the outsider's binary, into a
// temporary directory.
func pactVerify(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pact-verify")
	build := exec.Command("go", "build", "-o", bin, "./cmd/pact-verify")
	build.Dir = filepath.Join("..", "..") // go test runs in the package's directory
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// verifyRun runs pact-verify with args and returns its exit code and report.
func verifyRun(t *testing.T, bin string, args ...string) (int, logformat.Report, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	var rep logformat.Report
	if out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	}
	return code, rep, errOut.String()
}

// LOG-010, LOG-012: pact-admin log-export writes a bundle that pact-verify, a
// process with no database and no network, verifies with the keys the
// board publishes and with the checkpoints kept from it; after a
// superuser rewrites a payload (every later hash recomputed, the head
// moved, the checkpoints re-signed with the board's key) the new bundle
// verifies on its own, and fails against the checkpoints kept before,
// naming the rewritten entry.
func TestLogExportIsCheckedOfflineByPactVerify(t *testing.T) {
	ctx := context.Background()
	c := newCLI(t)
	c.ok("migrate")
	c.ok("human-add", "ana", "Ana", "owner")
	c.ok("project-add", "web", "Web", "--by", "ana")
	c.ok("agent-register", "code-web", "--client", "code", "--projects", "web", "--by", "ana")
	for _, prod := range []string{"true", "false", "true", "false"} {
		c.ok("project-set", "web", "--production", prod, "--by", "ana")
	}
	d, err := db.Open(ctx, c.env["DATABASE_URL"])
	require.NoError(t, err)
	defer d.Close()
	cfg, err := boot.Load(func(k string) string { return c.env[k] })
	require.NoError(t, err)
	keys, err := mandate.ParseKeyring("", c.env["PACT_SIGNING_KEY"])
	require.NoError(t, err)
	signer, origin, vkeys, err := logformat.BoardKeys(cfg.PublicURL, keys.Kids(), func(kid string) []byte {
		s, _ := keys.Seed(kid)
		return s
	})
	require.NoError(t, err)
	cp := &ledger.Checkpoints{Signer: signer, Origin: origin, Entries: 1, Every: time.Hour}
	_, err = cp.Take(ctx, d, time.Now())
	require.NoError(t, err)

	dir := t.TempDir()
	bundle, kept := filepath.Join(dir, "web.jsonl"), filepath.Join(dir, "kept.jsonl")
	out := c.ok("log-export", "--project", "web", "--out", bundle)
	require.Equal(t, "project:web", out["scope"])
	entries := int64(out["entries"].(float64))
	require.GreaterOrEqual(t, entries, int64(4))
	require.Equal(t, 1.0, out["checkpoints"])
	// The reader keeps this bundle's checkpoint, as a witness would.
	raw, err := os.ReadFile(bundle)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(kept, raw, 0o600))

	bin := pactVerify(t)
	code, rep, stderr := verifyRun(t, bin, "--key", vkeys[0], bundle)
	require.Equal(t, 0, code, "%s %+v", stderr, rep.Problems)
	require.True(t, rep.KeysPinned)
	require.Equal(t, entries, rep.Entries)
	require.Equal(t, 1, rep.Checkpoints)

	// An org's bundle holds its system chain too, and streams to stdout.
	code, orgBundle, _ := c.run("log-export", "--org", "default")
	require.Equal(t, 0, code)
	require.Contains(t, orgBundle, `"scope":"org:default"`)

	// The superuser's rewrite: the second entry of web gets another payload.
	var target int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT id FROM entries WHERE chain_key = 'web' ORDER BY id OFFSET 1 LIMIT 1`).Scan(&target))
	superuserRewrite(t, d, cp, "web", target)
	c.ok("log-verify", "--org", "default") // the database's own check passes
	forged := filepath.Join(dir, "forged.jsonl")
	c.ok("log-export", "--project", "web", "--out", forged)
	code, rep, _ = verifyRun(t, bin, "--key", vkeys[0], forged)
	require.Equal(t, 0, code, "the forged bundle agrees with itself: %+v", rep.Problems)

	code, rep, _ = verifyRun(t, bin, "--key", vkeys[0], "--checkpoints", kept, forged)
	require.Equal(t, 1, code)
	require.False(t, rep.OK)
	require.Equal(t, "web", rep.Problems[0].ChainKey)
	require.Contains(t, rep.Problems[0].Reason, "rewritten:")
	require.Contains(t, rep.Problems[0].Reason, "between position 1")

	code, _, stderr = verifyRun(t, bin, filepath.Join(dir, "missing.jsonl"))
	require.Equal(t, 2, code, stderr)
	c.refused("invalid_request", "log-export")
	c.refused("not_found", "log-export", "--project", "nowhere")
	c.refused("not_found", "log-export", "--org", "nowhere")
}

// superuserRewrite changes entry target's payload as a superuser can,
// with every trigger off: every later hash is recomputed, the head moves,
// and the chain's checkpoints are replaced by new ones signed with the
// board's key (core/ledger's test does the same with more to see).
func superuserRewrite(t *testing.T, d *db.DB, cp *ledger.Checkpoints, chain string, target int64) {
	ctx := context.Background()
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	for _, q := range []string{
		`SET LOCAL session_replication_role = replica`,
		`UPDATE payloads SET content = '{"forged": true}' WHERE id = (SELECT payload_ref FROM entries WHERE id = $1)`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = []any{target}
		}
		_, err := tx.Exec(ctx, q, args...)
		require.NoError(t, err)
	}
	_, err = tx.Exec(ctx, `UPDATE entries SET payload_hash = encode(sha256('{"forged":true}'::bytea), 'hex') WHERE id = $1`, target)
	require.NoError(t, err)
	rows, err := tx.Query(ctx, `SELECT e.id, e.project_id, e.task_id::text, e.agent_id, e.actor, e.mandate_chain::text[], e.action,
		e.payload_hash, e.outcome, e.at FROM entries e JOIN entry_places pl ON pl.entry_id = e.id
		WHERE pl.chain_key = $1 ORDER BY pl.seq`, chain)
	require.NoError(t, err)
	type row struct {
		id                         int64
		project, task, agent       *string
		actor, action, ph, outcome string
		mandates                   []string
		at                         time.Time
	}
	var all []row
	for rows.Next() {
		var x row
		require.NoError(t, rows.Scan(&x.id, &x.project, &x.task, &x.agent, &x.actor, &x.mandates, &x.action, &x.ph, &x.outcome, &x.at))
		all = append(all, x)
	}
	require.NoError(t, rows.Err())
	prev := logformat.Genesis
	bytesOf := func(s *string) []byte {
		if s == nil {
			return nil
		}
		return []byte(*s)
	}
	for _, x := range all {
		h := logformat.Hashed{ChainKey: []byte(chain), ProjectID: bytesOf(x.project), TaskID: bytesOf(x.task),
			AgentID: bytesOf(x.agent), Actor: []byte(x.actor), Action: []byte(x.action), PayloadHash: []byte(x.ph),
			Outcome: []byte(x.outcome), At: x.at, PrevHash: []byte(prev)}
		for _, m := range x.mandates {
			h.MandateChain = append(h.MandateChain, []byte(m))
		}
		sum := h.Sum()
		_, err := tx.Exec(ctx, `UPDATE entry_places SET prev_hash = $1, hash = $2 WHERE entry_id = $3`, prev, sum, x.id)
		require.NoError(t, err)
		prev = sum
	}
	_, err = tx.Exec(ctx, `UPDATE entry_chain_heads SET last_hash = $1 WHERE chain_key = $2`, prev, chain)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `DELETE FROM log_checkpoints WHERE chain_key = $1`, chain)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
	_, err = cp.Take(ctx, d, time.Now())
	require.NoError(t, err)
}
