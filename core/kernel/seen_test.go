package kernel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// A call that commits stamps its agent's last_seen, apart from the call's
// transaction (identity.Service.Seen); a refused call stamps nothing, as
// it changes nothing but its entry. The stamp is written within
// identity.SeenEvery, or at once by FlushSeen (as the board stops).
func TestACommittedCallStampsLastSeenAndARefusedOneDoesNot(t *testing.T) {
	ctx := context.Background()
	d, _ := toolFixture(t)
	log := ledger.New(nil)
	k := kernel.New(kernel.Deps{DB: d, Log: log, Identity: identity.NewService(d, log, nil)})
	require.NoError(t, k.Register(moduleFunc{"demo", func(h *kernel.Host) error { return h.Tool(freezeTool()) }}))
	lastSeen := func(agent string) *string {
		var at *string
		require.NoError(t, d.NewRaw(`SELECT (SELECT last_seen::text FROM agent_presence WHERE agent_id = ?)`, agent).Scan(ctx, &at))
		return at
	}

	_, err := k.Tools().Call(ctx, "code-new", "demo_freeze", json.RawMessage(`{"refuse": true}`))
	require.Equal(t, errs.ScopeExceeded, errs.CodeOf(err))
	_, err = k.Tools().Call(ctx, "code-web", "demo_freeze", nil)
	require.NoError(t, err)
	require.NoError(t, k.FlushSeen(ctx))
	require.NotNil(t, lastSeen("code-web"), "a committed call stamps last_seen")
	require.Nil(t, lastSeen("code-new"), "a refused call stamps nothing")

	// Without FlushSeen the stamp still comes, within SeenEvery.
	_, err = k.Tools().Call(ctx, "code-new", "demo_freeze", nil)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return lastSeen("code-new") != nil }, 5*identity.SeenEvery, identity.SeenEvery/10)
}
