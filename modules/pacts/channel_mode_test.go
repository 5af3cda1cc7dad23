package pacts_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// Mode channel (docs/hooks.md, "The channel") is recorded as channel, not
// as stream (the Log's entry of the call shows people the mode:
// cmd/pact-channel's tests read it through the Admin API). It answers with the
// stream's path, as mode stream does, and refuses a webhook's url or secret.
func TestSetPactDeliveryModeChannelIsRecordedAndShown(t *testing.T) {
	f := setup(t)
	out, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "channel"})
	require.NoError(t, err)
	require.Equal(t, "channel", out["mode"])
	require.Equal(t, "/pacts/stream", out["stream"].(map[string]any)["path"])
	require.Contains(t, out["note"], "pact-channel")

	var mode string
	require.NoError(t, f.DB.NewRaw(`SELECT mode FROM pact_delivery WHERE agent_id = 'bram'`).Scan(context.Background(), &mode))
	require.Equal(t, "channel", mode)

	for _, bad := range []map[string]any{{"mode": "channel", "url": "https://example.com/hook"}, {"mode": "channel", "secret": "whsec_x"}} {
		e := f.Refused(errs.InvalidRequest, "bram", pacts.ToolSetDelivery, withRoot(f, "bram", bad))
		require.Equal(t, "url and secret go with mode webhook only", e.Message)
	}
	require.NoError(t, f.DB.NewRaw(`SELECT mode FROM pact_delivery WHERE agent_id = 'bram'`).Scan(context.Background(), &mode))
	require.Equal(t, "channel", mode, "a refused call changes nothing")

	// The database holds the same set of modes as the tool.
	_, err = f.DB.ExecContext(context.Background(), `UPDATE pact_delivery SET mode = 'carrier-pigeon' WHERE agent_id = 'bram'`)
	require.ErrorContains(t, err, "pact_delivery_mode_check")
}

func withRoot(f *fixture, agent string, args map[string]any) map[string]any {
	args["mandate_id"] = f.roots[agent]
	return args
}
