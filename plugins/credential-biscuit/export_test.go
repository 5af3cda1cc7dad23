package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

func TestFormatAndImport(t *testing.T) {
	p := plugintest.Credential(t, New())
	f, err := p.Format(t.Context())
	require.NoError(t, err)
	require.Equal(t, "biscuit", f)
	_, err = p.Import(t.Context(), credential.ImportRequest{Credential: "x"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "importing Biscuit tokens is not supported yet")
}

func TestExportShape(t *testing.T) {
	p := plugintest.Credential(t, New())
	r, pub := exportReq(t, 3)
	e, err := p.Export(t.Context(), r)
	require.NoError(t, err)
	require.Equal(t, "biscuit", e.Format)
	require.Equal(t, "biscuit", e.Field)
	require.Equal(t, t0.Add(8*time.Hour), e.ExpiresAt.UTC(), "the leaf is capped at now+TTL")

	b, _, err := ParseToken(e.Credential, []ed25519.PublicKey{pub})
	require.NoError(t, err)
	require.Equal(t, 3, b.BlockCount()+1-0, "authority + 2 attenuation blocks") // BlockCount counts attenuation blocks
	ids := b.RevocationIds()
	require.Len(t, ids, 3)
	require.Equal(t, hex.EncodeToString(ids[2]), e.ExternalID)
	for i, l := range r.Chain {
		require.Equal(t, []string{hex.EncodeToString(ids[i])}, e.LinkIDs[l.ID])
	}

	raw, err := base64.URLEncoding.DecodeString(e.Credential)
	require.NoError(t, err)
	id, ok := rootKeyIDOf(raw)
	require.True(t, ok)
	require.Equal(t, RootKeyID(pub), id)

	code := b.String() + strings.Join(b.Code(), "\n")
	for _, want := range []string{
		`right("web", "task.work")`, `right("api", "task.read")`, `mandate("m-0")`, `mandate("m-2")`,
		`holder("` + b64url(r.HolderKey) + `")`,
		`check if tool("task.work"), project("web") or tool("task.read"), project("web")`,
		`$v <= 10000000`, `$v <= 5500000`, `$v <= 3000000`,
		`check if arg_names($n), [`,
		`$t <= 2026-11-02T12:00:00Z`, `$t <= 2026-11-01T20:00:00Z`,
	} {
		require.Contains(t, code, want)
	}
	t.Logf("token code:\n%s", code)
}

func TestExportMintsNewIDsEachTime(t *testing.T) {
	r, _ := exportReq(t, 1)
	a, err := New().Export(t.Context(), r)
	require.NoError(t, err)
	b, err := New().Export(t.Context(), r)
	require.NoError(t, err)
	require.NotEqual(t, a.ExternalID, b.ExternalID)
}

func TestExportRefusals(t *testing.T) {
	p := plugintest.Credential(t, New())
	for name, tc := range map[string]struct {
		edit func(*credential.ExportRequest)
		msg  string
	}{
		"wildcard action": {func(r *credential.ExportRequest) { r.Chain[1].Scope = []string{"task.*@project:web"} },
			"no biscuit credential: these scopes cannot be exported as Biscuit tokens: task.*@project:web"},
		"star": {func(r *credential.ExportRequest) { r.Chain[0].Scope = append(r.Chain[0].Scope, "*") },
			"these scopes cannot be exported as Biscuit tokens: *"},
		"opaque scope": {func(r *credential.ExportRequest) { r.Chain[0].Scope = []string{"doc.read:customer_a"} },
			"cannot be exported as Biscuit tokens: doc.read:customer_a"},
		"empty scope":     {func(r *credential.ExportRequest) { r.Chain[1].Scope = nil }, "link m-1 has an empty scope"},
		"empty chain":     {func(r *credential.ExportRequest) { r.Chain = nil }, "the chain is empty"},
		"short agent key": {func(r *credential.ExportRequest) { r.HolderKey = r.HolderKey[:31] }, "32-byte Ed25519 public key"},
		"broken chain":    {func(r *credential.ExportRequest) { r.Chain[1].ParentID = "m-x" }, "does not follow its parent"},
		"expired":         {func(r *credential.ExportRequest) { r.Chain[0].ExpiresAt = t0 }, "link m-0 has expired"},
		"bad seed":        {func(r *credential.ExportRequest) { r.Key.Seed = r.Key.Seed[:16] }, "32-byte Ed25519 seed"},
		"huge limit":      {func(r *credential.ExportRequest) { r.Chain[0].Limits["cost"] = 1e300 }, "limit cost of link m-0"},
	} {
		t.Run(name, func(t *testing.T) {
			r, _ := exportReq(t, 2)
			tc.edit(&r)
			_, err := p.Export(t.Context(), r)
			require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}
