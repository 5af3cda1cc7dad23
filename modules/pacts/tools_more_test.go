package pacts_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// The log entry of set_pact_delivery says whether a signing secret was
// given, never the secret itself: a call without one logs secret_given
// false, a call with one (here refused, since a secret goes with mode
// webhook only) logs secret_given true and not the secret.
func TestDeliveryEntrySaysWhetherASecretWasGiven(t *testing.T) {
	f := setup(t)
	_, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "stream"})
	require.NoError(t, err)
	_, err = f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "stream", "secret": "whsec_hiddenvalue"})
	require.Error(t, err)

	entries := `SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = ? AND e.actor = 'agent:bram' AND p.content->>'mode' = 'stream'`
	require.Equal(t, 1, f.Count(entries+` AND e.outcome = 'ok' AND p.content->>'secret_given' = 'false'`, pacts.ToolSetDelivery),
		"the call without a secret logs none given")
	require.Equal(t, 1, f.Count(entries+` AND e.outcome = 'invalid_request' AND p.content->>'secret_given' = 'true'`, pacts.ToolSetDelivery),
		"the call with a secret logs one given")
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM payloads WHERE content::text LIKE '%whsec_hiddenvalue%'`),
		"the secret itself is never logged")
}
