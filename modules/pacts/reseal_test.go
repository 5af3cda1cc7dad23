package pacts_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/modules/pacts"
)

func sealBox(t *testing.T, kids ...string) *seal.Box {
	t.Helper()
	var entries []string
	for _, kid := range kids {
		entries = append(entries, kid+"="+base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat(kid[:1], 32))))
	}
	k, err := mandate.ParseKeyring(strings.Join(entries, ","), "")
	require.NoError(t, err)
	return seal.New(k)
}

// A pact webhook's address and secret are sealed again under the active
// key, so retiring the old key leaves them readable (PACT-023).
func TestPactWebhooksAreResealedUnderTheActiveKey(t *testing.T) {
	f := setup(t)
	old := sealBox(t, "k1")
	url, err := old.Seal("https://receiver.example/hook", "pact_delivery.url/bram")
	require.NoError(t, err)
	secret, err := old.Seal("whsec_c2VjcmV0", "pact_delivery.secret/bram")
	require.NoError(t, err)
	f.Exec(`INSERT INTO pact_delivery (agent_id, org_id, mode, url, secret) VALUES ('bram', 'default', 'webhook', ?, ?)`, url, secret)

	rotated := sealBox(t, "k2", "k1")
	n, err := pacts.ResealDeliveries(t.Context(), f.DB, rotated)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	var stored []string
	require.NoError(t, f.DB.NewRaw(`SELECT url FROM pact_delivery UNION ALL SELECT secret FROM pact_delivery`).Scan(t.Context(), &stored))
	retired := sealBox(t, "k2") // k1 is gone: what was resealed still opens
	got, err := retired.Open(stored[0], "pact_delivery.url/bram")
	require.NoError(t, err)
	require.Equal(t, "https://receiver.example/hook", got)
	got, err = retired.Open(stored[1], "pact_delivery.secret/bram")
	require.NoError(t, err)
	require.Equal(t, "whsec_c2VjcmV0", got)
	n, err = pacts.ResealDeliveries(t.Context(), f.DB, rotated)
	require.NoError(t, err)
	require.Zero(t, n, "already under the active key")
}
