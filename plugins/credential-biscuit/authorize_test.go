package main

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// authCase is one call against an exported token; the interop test runs
// the same cases through biscuit-wasm.
type authCase struct {
	Name    string         `json:"name"`
	Tool    string         `json:"tool"`
	Project string         `json:"project"`
	Args    map[string]any `json:"args"`
	Now     time.Time      `json:"now"`
	Revoked []string       `json:"revoked"`
	Allow   bool           `json:"allow"`
}

// authCases are the calls every exported token (chain depth n) is checked
// with; ids are the token's revocation ids, root first.
func authCases(ids []string) []authCase {
	ok := func(name string, c authCase) authCase {
		c.Name, c.Allow = name, true
		return c
	}
	base := authCase{Tool: "task.work", Project: "web", Args: map[string]any{"task_id": "t-1", "cost": 5.5, "runs": 1}, Now: t0.Add(time.Hour)}
	with := func(name string, edit func(*authCase)) authCase {
		c := base
		c.Name, c.Args = name, map[string]any{}
		for k, v := range base.Args {
			c.Args[k] = v
		}
		edit(&c)
		return c
	}
	cases := []authCase{
		ok("valid call", base),
		ok("valid read", with("", func(c *authCase) { c.Tool = "task.read" })),
		with("over-limit argument", func(c *authCase) { c.Args["cost"] = 5.500001 }),
		with("over the root's limit", func(c *authCase) { c.Args["runs"] = 4 }),
		with("another project", func(c *authCase) { c.Project = "api" }),
		with("a tool outside the scope", func(c *authCase) { c.Tool = "deploy.web" }),
		with("expired token", func(c *authCase) { c.Now = t0.Add(8*time.Hour + time.Second) }),
		with("an argument nobody constrained", func(c *authCase) { c.Args["force"] = true }),
		with("a limited argument missing", func(c *authCase) { delete(c.Args, "cost") }),
		with("a limited argument not a number", func(c *authCase) { c.Args["cost"] = "1" }),
	}
	cases[1].Name = "valid read"
	cases[1].Allow = true
	for i, id := range ids {
		cases = append(cases, with("revoked id of block "+string(rune('0'+i)), func(c *authCase) { c.Revoked = []string{"00ff", id} }))
	}
	return cases
}

func TestAuthorizeExported(t *testing.T) {
	for _, n := range []int{1, 3} {
		r, pub := exportReq(t, n)
		e, err := New().Export(t.Context(), r)
		require.NoError(t, err)
		ids := make([]string, 0, n)
		for _, l := range r.Chain {
			ids = append(ids, e.LinkIDs[l.ID][0])
		}
		for _, c := range authCases(ids) {
			if n == 1 && (c.Name == "over-limit argument" || c.Name == "valid read") {
				continue // the root alone allows cost 10 and has no narrower leaf
			}
			err := Authorize(e.Credential, []ed25519.PublicKey{pub}, c.Revoked, Call{Tool: c.Tool, Project: c.Project, Args: c.Args, Now: c.Now})
			if c.Allow {
				require.NoError(t, err, "depth %d: %s", n, c.Name)
			} else {
				require.Error(t, err, "depth %d: %s", n, c.Name)
			}
		}
	}
}

func TestAuthorizeWideningBlockIsIneffective(t *testing.T) {
	r, pub := exportReq(t, 2)
	r.Chain[1].Scope = []string{"task.work@project:web", "deploy.web@project:web"}
	e, err := New().Export(t.Context(), r)
	require.NoError(t, err)
	call := Call{Tool: "deploy.web", Project: "web", Args: map[string]any{"cost": 1, "runs": 1}, Now: t0}
	require.Error(t, Authorize(e.Credential, []ed25519.PublicKey{pub}, nil, call), "only authority right facts grant")
}

func TestAuthorizeRefusesUntrustedAndTamperedTokens(t *testing.T) {
	r, _ := exportReq(t, 2)
	e, err := New().Export(t.Context(), r)
	require.NoError(t, err)
	_, other := testKey("other board")
	call := Call{Tool: "task.work", Project: "web", Args: map[string]any{"cost": 1, "runs": 1}, Now: t0}
	require.ErrorContains(t, Authorize(e.Credential, []ed25519.PublicKey{other}, nil, call), "not signed by a trusted key")

	_, pub := testKey("board")
	require.NoError(t, Authorize(e.Credential, []ed25519.PublicKey{other, pub}, nil, call), "picks the key by root key id")
	raw := []byte(e.Credential)
	for i := 8; i < len(raw)-8; i += 7 {
		flipped := append([]byte(nil), raw...)
		flipped[i] ^= 0x01
		require.Error(t, Authorize(string(flipped), []ed25519.PublicKey{pub}, nil, call), "byte %d flipped", i)
	}
}
