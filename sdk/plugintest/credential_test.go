package plugintest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

func TestCredentialRoundTrip(t *testing.T) {
	ctx := context.Background()
	key := credential.SigningKey{Kid: "k1", Seed: make([]byte, 32)}
	key.Seed[0] = 7
	exportReq := credential.ExportRequest{
		Chain: []credential.Link{
			{ID: "m1", IssuerKind: "human", Issuer: "alice", Holder: "a1", Scope: []string{"tasks.claim", "notes.*"},
				Limits: map[string]float64{"usd": 12.5}, DelegationsLeft: 2, Depth: 0, ExpiresAt: t0.Add(time.Hour)},
			{ID: "m2", ParentID: "m1", IssuerKind: "agent", Issuer: "a1", Holder: "a2", Scope: []string{"tasks.claim"},
				DelegationsLeft: 0, Depth: 1, ExpiresAt: t0.Add(30 * time.Minute)},
		},
		HolderKey: []byte{1, 2, 3},
		TTL:       90 * time.Minute,
		Now:       t0,
		Key:       key,
	}
	exported := &credential.Exported{
		Format: "tenuo", Field: "warrant_stack", Credential: "eyJ...", ExternalID: "w-1",
		LinkIDs:   map[string][]string{"m1": {"w-a", "w-b"}, "m2": {"w-c"}},
		ExpiresAt: t0.Add(30 * time.Minute),
	}
	revReq := credential.RevocationRequest{Revoked: []string{"w-a", "w-c"}, Version: 42, Now: t0, Key: key}
	impReq := credential.ImportRequest{Credential: "cred", TrustedRoots: [][]byte{{9, 9}}, HolderKeys: [][]byte{{1}, {2}}, Now: t0}
	imported := &credential.ImportedLink{
		Scope: []string{"tasks.*"}, Limits: map[string]float64{"calls": 100}, ExpiresAt: t0.Add(24 * time.Hour),
		ExternalID: "b-1", IssuerPrincipal: []byte{9, 9}, MaxDelegations: 3,
	}

	var gotExport credential.ExportRequest
	var gotRev credential.RevocationRequest
	var gotImp credential.ImportRequest
	c := plugintest.Credential(t, &fakeCredential{
		format: func(context.Context) (string, error) { return "tenuo", nil },
		export: func(_ context.Context, r credential.ExportRequest) (*credential.Exported, error) {
			gotExport = r
			return exported, nil
		},
		revocationList: func(_ context.Context, r credential.RevocationRequest) (*credential.RevocationList, error) {
			gotRev = r
			return &credential.RevocationList{ContentType: "application/cbor", Body: []byte{0xa1, 0x01}}, nil
		},
		importFn: func(_ context.Context, r credential.ImportRequest) (*credential.ImportedLink, error) {
			gotImp = r
			return imported, nil
		},
	})

	f, err := c.Format(ctx)
	require.NoError(t, err)
	require.Equal(t, "tenuo", f)

	e, err := c.Export(ctx, exportReq)
	require.NoError(t, err)
	require.Equal(t, exported, e)
	require.Equal(t, exportReq, gotExport)

	l, err := c.RevocationList(ctx, revReq)
	require.NoError(t, err)
	require.Equal(t, &credential.RevocationList{ContentType: "application/cbor", Body: []byte{0xa1, 0x01}}, l)
	require.Equal(t, revReq, gotRev)

	il, err := c.Import(ctx, impReq)
	require.NoError(t, err)
	require.Equal(t, imported, il)
	require.Equal(t, impReq, gotImp)
}

func TestCredentialErrors(t *testing.T) {
	ctx := context.Background()
	c := plugintest.Credential(t, &fakeCredential{
		format: func(context.Context) (string, error) { return "", errs.E(errs.Unavailable, "key service down") },
		export: func(context.Context, credential.ExportRequest) (*credential.Exported, error) {
			return nil, errs.E(errs.InvalidRequest, "tenuo cannot express limit usd")
		},
		revocationList: func(context.Context, credential.RevocationRequest) (*credential.RevocationList, error) {
			return nil, errs.E(errs.Internal, "signer failed")
		},
		importFn: func(context.Context, credential.ImportRequest) (*credential.ImportedLink, error) {
			return nil, errs.E(errs.ChainBroken, "signature of link 2 does not verify")
		},
	})
	_, err := c.Format(ctx)
	require.Equal(t, errs.Unavailable, errs.CodeOf(err))
	_, err = c.Export(ctx, credential.ExportRequest{})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Equal(t, "tenuo cannot express limit usd", errs.Public(err).Message)
	_, err = c.RevocationList(ctx, credential.RevocationRequest{})
	require.Equal(t, errs.Internal, errs.CodeOf(err))
	_, err = c.Import(ctx, credential.ImportRequest{})
	require.Equal(t, errs.ChainBroken, errs.CodeOf(err))
	require.Equal(t, "signature of link 2 does not verify", errs.Public(err).Message)

	// Every code of the vocabulary survives the trip.
	for _, code := range errs.All() {
		c := plugintest.Credential(t, &fakeCredential{
			format: func(context.Context) (string, error) { return "", errs.Mandate(code, "m9", "refused") },
		})
		_, err := c.Format(ctx)
		e, ok := errs.As(err)
		require.True(t, ok)
		require.Equal(t, code, e.Code)
		require.Equal(t, "m9", e.MandateID)
	}
}
