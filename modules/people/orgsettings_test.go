package people_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/people"
)

// The log of each organization update says what became of the Slack
// webhook: "set" when one is given, "cleared" when it is blank (after
// trimming), and nothing when it is not named; never the URL.
func TestUpdateOrgLogsWhetherTheWebhookWasSetOrCleared(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	lastLogged := func() string {
		t.Helper()
		var s []string
		require.NoError(t, b.DB.NewRaw(`SELECT coalesce(p.content->>'slack_webhook', '<none>') FROM entries e
			JOIN payloads p ON p.id = e.payload_ref WHERE e.action = 'admin.org.update' AND e.outcome = 'ok'
			ORDER BY e.id DESC LIMIT 1`).Scan(ctx, &s))
		require.Len(t, s, 1)
		return s[0]
	}
	_, err := b.mod.Service().UpdateOrg(ctx, "ana", people.OrgUpdate{SlackWebhookURL: ptr("https://hooks.slack.com/services/T0/B0/abcd")})
	require.NoError(t, err)
	require.Equal(t, "set", lastLogged())
	_, err = b.mod.Service().UpdateOrg(ctx, "ana", people.OrgUpdate{Name: ptr("Renamed")})
	require.NoError(t, err)
	require.Equal(t, "<none>", lastLogged())
	_, err = b.mod.Service().UpdateOrg(ctx, "ana", people.OrgUpdate{SlackWebhookURL: ptr("  ")})
	require.NoError(t, err)
	require.Equal(t, "cleared", lastLogged())
}
