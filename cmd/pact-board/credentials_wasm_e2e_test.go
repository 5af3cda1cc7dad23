package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/plugins/credential-biscuit/wasmcheck"
)

// A Biscuit a real board exports on claim (real credential-biscuit plugin,
// PACT_EXPORT_TTL_HOURS=0.5) is verified and authorized by the official
// @biscuit-auth/biscuit-wasm under the key the board publishes in
// /.well-known/pact-keys.json: a valid call and a read pass, also just
// before the TTL ends; an over-limit argument, another project, an argument
// nobody constrained, an expired token and the ids the board publishes at
// /.well-known/pact-revocations/biscuit after pact_revoke each fail. The
// token's revocation ids are the ones the board recorded for each link.
func TestBoardBiscuitsPassBiscuitWasm(t *testing.T) {
	ctx := context.Background()
	const ttl = 30 * time.Minute
	b := startWithCredentialPlugin(t, "biscuit", map[string]string{"PACT_EXPORT_TTL_HOURS": "0.5"})
	d := delegate(t, b, map[string]any{"runs": 2, "turns": 40})
	task, delegated := d.taskID, d.mandateID
	before := time.Now()
	cred := d.claim(t, "biscuit")
	after := time.Now()
	token := cred["biscuit"].(string)

	// The ids the board recorded for each link: biscuit-wasm must compute the same.
	var ids []string
	for _, link := range []string{b.roots["code-web"], delegated} {
		var id string
		require.NoError(t, b.d.NewRaw(`SELECT external_id FROM credential_links WHERE format = 'biscuit' AND mandate_id = ?`,
			link).Scan(ctx, &id))
		ids = append(ids, id)
	}
	require.Equal(t, cred["external_id"], ids[1])

	d.code.ok("pact_revoke", map[string]any{"mandate_id": delegated})
	revoked := publishedBiscuitRevocations(t, b.base)
	require.Contains(t, revoked, ids[1])

	x := exportedBiscuit{Token: token, TaskID: task, Limits: map[string]float64{"runs": 2, "turns": 40}, IDs: ids, Revoked: revoked}
	x.LiveUntil, x.ExpiredBy = biscuitLifetime(t, b, before, after, ttl, b.roots["code-web"], delegated)
	checkBoardBiscuit(t, b.base, x)
}

// exportedBiscuit is a Biscuit the board exported on a claim of TaskID
// through a link with these per-call Limits, and what a verifier knows of
// it.
type exportedBiscuit struct {
	Token  string
	TaskID string
	Limits map[string]float64
	// IDs, when set, are the token's revocation ids the board recorded,
	// root first.
	IDs []string
	// LiveUntil is no later than the token's expiry; ExpiredBy no earlier.
	LiveUntil, ExpiredBy time.Time
	// Revoked is the board's published revocation list; it holds an id of
	// the token.
	Revoked []string
}

// checkBoardBiscuit has the official biscuit-wasm check x under the
// board's active published key (its root key id is the first 4 bytes of
// SHA-256 of the key): valid calls pass; an over-limit argument, another
// project, an argument nobody constrained, an expired token and a revoked
// id each fail. Every test that exports a Biscuit from a board calls it.
func checkBoardBiscuit(t *testing.T, base string, x exportedBiscuit) {
	t.Helper()
	root := publishedKeys(t, base)[0].key // the active key comes first
	sum := sha256.Sum256(root)

	now := time.Now()
	require.True(t, now.Before(x.LiveUntil), "the token is still live")
	require.NotEmpty(t, x.Limits)
	require.NotEmpty(t, x.Revoked)
	valid := wasmcheck.Case{Token: x.Token, Tool: "task.work", Project: "web", Args: map[string]any{"task_id": x.TaskID}, Now: now,
		IDs: x.IDs}
	for k, v := range x.Limits {
		valid.Args[k] = v
	}
	with := func(name string, allow bool, edit func(*wasmcheck.Case)) wasmcheck.Case {
		c := valid
		c.Name, c.Allow, c.Args = name, allow, map[string]any{}
		for k, v := range valid.Args {
			c.Args[k] = v
		}
		edit(&c)
		return c
	}
	cases := []wasmcheck.Case{
		with("valid call", true, func(*wasmcheck.Case) {}),
		with("valid read", true, func(c *wasmcheck.Case) { c.Tool = "task.read" }),
		with("valid call just before expiry", true, func(c *wasmcheck.Case) { c.Now = x.LiveUntil.Add(-2 * time.Second) }),
		with("another project", false, func(c *wasmcheck.Case) { c.Project = "api" }),
		with("a tool outside the scope", false, func(c *wasmcheck.Case) { c.Tool = "task.post" }),
		with("an argument nobody constrained", false, func(c *wasmcheck.Case) { c.Args["force"] = true }),
		with("expired token", false, func(c *wasmcheck.Case) { c.Now = x.ExpiredBy.Add(time.Second) }),
		with("revoked id", false, func(c *wasmcheck.Case) { c.Revoked = x.Revoked }),
	}
	for _, k := range slices.Sorted(maps.Keys(x.Limits)) {
		cases = append(cases, with("over-limit argument "+k, false, func(c *wasmcheck.Case) { c.Args[k] = x.Limits[k] + 0.000001 }))
	}
	wasmcheck.Run(t, wasmcheck.Input{PublicKeyHex: hex.EncodeToString(root), RootKeyID: binary.BigEndian.Uint32(sum[:4]),
		Cases: cases})
}

// publishedBiscuitRevocations reads the revoked ids of the board's signed
// Biscuit revocation list.
func publishedBiscuitRevocations(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/.well-known/pact-revocations/biscuit")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var doc struct{ Payload, Signature string }
	require.NoError(t, json.Unmarshal(body, &doc))
	var payload struct {
		Revoked []string `json:"revoked"`
	}
	require.NoError(t, json.Unmarshal([]byte(doc.Payload), &payload))
	return payload.Revoked
}

// biscuitLifetime bounds the expiry of a Biscuit claimed between before and
// after through these links (mandate ids) under the export TTL: it expires
// at the earliest of claim time + TTL and the links' expiries.
func biscuitLifetime(t *testing.T, b *e2eBoard, before, after time.Time, ttl time.Duration, links ...string) (liveUntil, expiredBy time.Time) {
	t.Helper()
	var expires time.Time
	require.NoError(t, b.d.NewRaw(`SELECT min(expires_at) FROM mandates WHERE id IN (?)`, bun.List(links)).Scan(context.Background(), &expires))
	earliest := func(a, b time.Time) time.Time {
		if b.Before(a) {
			return b
		}
		return a
	}
	return earliest(before.Add(ttl), expires), earliest(after.Add(ttl), expires)
}
