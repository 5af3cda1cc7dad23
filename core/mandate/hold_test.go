package mandate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// holdErr runs chain's Hold step in a pipelined transaction and returns
// what Err says after it.
func (w *world) holdErr(chain mandate.Chain) error {
	w.tb.Helper()
	h := mandate.HoldChain(chain)
	tx, err := w.d.Begin(w.ctx, h.Step())
	require.NoError(w.tb, err)
	defer tx.Rollback(w.ctx)
	return h.Err()
}

func TestHoldOfALiveChainIsNil(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3")
	h := mandate.HoldChain(w.chain(links[2]))
	require.NoError(t, h.Err(), "before Step nothing was found revoked")
	require.NoError(t, w.holdErr(w.chain(links[2])))
	require.NoError(t, w.holdErr(w.chain(links[0])))
}

// Only the revoked link itself is marked (RevokeSubtree), so revoking two
// links below the root tells the first-from-the-root rule apart from "any"
// or "last"; the root is live, so a step that stopped after the first row
// would find nothing.
func TestHoldNamesTheFirstRevokedLinkFromTheRoot(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3", "a4")
	chain := w.chain(links[3])
	w.exec("UPDATE mandates SET revoked_at = now() WHERE id IN (?, ?)", links[2].ID.String(), links[1].ID.String())
	err := w.holdErr(chain)
	e := requireRefusal(t, err, errs.MandateRevoked, links[1].ID.String())
	require.Equal(t, "mandate "+links[1].ID.String()+" in the chain was revoked", e.Message)

	// The leaf alone revoked is named too.
	links = w.line(nil, "a5")
	chain = w.chain(links[1])
	w.exec("UPDATE mandates SET revoked_at = now() WHERE id = ?", links[1].ID.String())
	requireRefusal(t, w.holdErr(chain), errs.MandateRevoked, links[1].ID.String())
}
