package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/notify"
)

// Left unset, the expiry warning goes out two days ahead
// (notify.DefaultExpiryWarn): a token expiring in 47 hours is warned of, one
// expiring in 49 hours not yet.
func TestExpiryWarningsLeftUnsetGoOutTwoDaysAhead(t *testing.T) {
	w := newWorld(t)
	agent(t, w.DB, "soon-web", "active", "web")
	token(t, w.DB, "soon-web", "now() + interval '47 hours'")
	agent(t, w.DB, "later-web", "active", "web")
	token(t, w.DB, "later-web", "now() + interval '49 hours'")

	n, err := notify.NewService(w.DB, nil, &notify.Options{Location: time.UTC}).SweepExpiry(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	ws := warnings(t, w.DB)
	require.Len(t, ws, 1)
	require.Equal(t, "soon-web", ws[0].AgentID)
}
