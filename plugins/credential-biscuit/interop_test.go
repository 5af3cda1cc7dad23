package main

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/plugins/credential-biscuit/wasmcheck"
)

// TestInteropBiscuitWasm has the official @biscuit-auth/biscuit-wasm verify
// and authorize tokens this plugin mints, at chain depth 1, 2 and 4: a valid
// call passes; an over-limit argument, another project, an expired token, an
// unconstrained argument and each revoked id fail. Revocation ids and the
// root key id must agree with Go's. Node and npm are required: without them
// the test fails rather than skips, so make test cannot pass without it.
func TestInteropBiscuitWasm(t *testing.T) {
	_, pub := testKey("board")
	var cases []wasmcheck.Case
	for _, n := range []int{1, 2, 4} {
		r, _ := exportReq(t, n)
		e, err := New().Export(t.Context(), r)
		require.NoError(t, err)
		var ids []string
		for _, l := range r.Chain {
			ids = append(ids, e.LinkIDs[l.ID][0])
		}
		for _, c := range authCases(ids) {
			if n == 1 && (c.Name == "over-limit argument" || c.Name == "valid read") {
				continue
			}
			cases = append(cases, wasmcheck.Case{Name: fmt.Sprintf("depth %d: %s", n, c.Name), Token: e.Credential,
				Tool: c.Tool, Project: c.Project, Args: c.Args, Now: c.Now, Revoked: c.Revoked, Allow: c.Allow, IDs: ids})
		}
	}
	wasmcheck.Run(t, wasmcheck.Input{PublicKeyHex: hex.EncodeToString(pub), RootKeyID: RootKeyID(pub), Cases: cases})
}
