package notify_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/modules/notify"
)

// agent adds an agent of the default organization with status and projects,
// and no mandate or token: the expiry sweep's cases give each agent exactly
// the roots and tokens they are about, which registering (a root and a
// token of its own) would not.
func agent(t testing.TB, d *db.DB, id, status string, projects ...string) {
	t.Helper()
	ctx := context.Background()
	_, err := d.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client, status) VALUES (?, 'default', 'ana', 'runner', ?)`, id, status)
	require.NoError(t, err)
	for _, p := range projects {
		_, err := d.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES (?, ?, 'default')`, id, p)
		require.NoError(t, err)
	}
}

// token adds a token of agent expiring at the SQL expression expires, which
// may be in the past (no service issues such a token).
func token(t testing.TB, d *db.DB, agent, expires string) {
	t.Helper()
	_, err := d.ExecContext(context.Background(), `INSERT INTO agent_tokens (token_hash, agent_id, expires_at)
		VALUES (encode(sha256(gen_random_uuid()::text::bytea), 'hex'), ?, `+expires+`)`, agent)
	require.NoError(t, err)
}

// warning is a queued expiry notification.
type warning struct {
	Kind    string `bun:"kind"`
	AgentID string `bun:"agent_id"`
	Project string `bun:"project_id"`
	Title   string `bun:"title"`
	Detail  string `bun:"detail"`
}

func warnings(t testing.TB, d *db.DB) []warning {
	t.Helper()
	var ws []warning
	require.NoError(t, d.NewRaw(`SELECT kind, agent_id, project_id, title, detail FROM notifications
		WHERE kind IN ('expiring', 'expired') ORDER BY agent_id, title`).Scan(context.Background(), &ws))
	return ws
}

func expirySvc(d *db.DB) *notify.Service {
	return notify.NewService(d, nil, &notify.Options{ExpiryWarn: 48 * time.Hour, Location: time.UTC})
}

func TestExpiryWarningsGoOutOncePerSubjectAndStage(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	agent(t, d, "runner-web", "active", "web")
	mandate(t, d, "runner-web", "now() + interval '1 day'")
	token(t, d, "runner-web", "now() + interval '1 day'")
	svc := expirySvc(d)

	n, err := svc.SweepExpiry(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	ws := warnings(t, d)
	require.Len(t, ws, 2)
	require.Regexp(t, `^runner-web: root mandate expires \d{4}-\d\d-\d\d \d\d:\d\d UTC$`, ws[0].Title)
	require.Equal(t, "Renew it with pact-admin mandate-issue and update the agent's environment", ws[0].Detail)
	require.Regexp(t, `^runner-web: token expires \d{4}-\d\d-\d\d \d\d:\d\d UTC$`, ws[1].Title)
	require.Equal(t, "Renew it with pact-admin token-issue and update the agent's environment", ws[1].Detail)
	for _, w := range ws {
		require.Equal(t, "expiring", w.Kind)
		require.Equal(t, "runner-web", w.AgentID)
		require.Equal(t, "web", w.Project)
	}

	n, err = svc.SweepExpiry(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "each subject and stage once")
	require.Len(t, warnings(t, d), 2)
}

func TestExpiredWithinADayIsAnnouncedAndOlderIsNot(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	agent(t, d, "recent", "active", "web")
	m := mandate(t, d, "recent", "now() - interval '1 hour'", "now() - interval '10 days'")
	token(t, d, "recent", "now() - interval '2 hours'")
	agent(t, d, "old-news", "active", "web")
	mandate(t, d, "old-news", "now() - interval '3 days'", "now() - interval '10 days'")
	token(t, d, "old-news", "now() - interval '25 hours'")
	// Warned while it was expiring: expiring and expired are two stages. The
	// mandate was made already expired, so no sweep could have left this row.
	_, err := d.ExecContext(ctx, `INSERT INTO expiry_notices (subject, stage) VALUES (?, 'expiring')`, "mandate:"+m)
	require.NoError(t, err)

	n, err := expirySvc(d).SweepExpiry(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	ws := warnings(t, d)
	require.Len(t, ws, 2)
	require.Equal(t, "expired", ws[0].Kind)
	require.Regexp(t, `^recent: root mandate expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC$`, ws[0].Title)
	require.Equal(t, "expired", ws[1].Kind)
	require.Regexp(t, `^recent: token expired at `, ws[1].Title)
}

func TestRenewedPausedReplacedProjectlessRevokedAndDelegatedAreSilent(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	soon, created := "now() + interval '1 day'", "now() - interval '1 hour'"

	agent(t, d, "renewed", "active", "web")
	mandate(t, d, "renewed", soon, created)
	mandate(t, d, "renewed", "now() + interval '7 days'")
	agent(t, d, "barely", "active", "web") // a newer root only 30 minutes longer is no renewal
	mandate(t, d, "barely", soon, created)
	mandate(t, d, "barely", "now() + interval '1 day 30 minutes'")
	agent(t, d, "paused", "paused", "web")
	mandate(t, d, "paused", soon)
	token(t, d, "paused", soon)
	agent(t, d, "replaced", "active", "web")
	mandate(t, d, "replaced", soon)
	_, err := d.ExecContext(ctx, `UPDATE agents SET replaced_by = 'code-web' WHERE id = 'replaced'`)
	require.NoError(t, err)
	agent(t, d, "nowhere", "active")
	mandate(t, d, "nowhere", soon)
	token(t, d, "nowhere", soon)
	agent(t, d, "revoked", "active", "web")
	// Rows as mandate() writes them (see agent): the one root each case is about.
	_, err = d.ExecContext(ctx, `INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth,
		expires_at, signature, revoked_at) VALUES (gen_random_uuid(), 'human', 'ana', 'revoked', '{task.work}', 0, 0, `+soon+`, 'sig', now())`)
	require.NoError(t, err)
	token(t, d, "revoked", soon) // an older token expiring soon, and a newer one that does not
	token(t, d, "revoked", "now() + interval '30 days'")
	agent(t, d, "delegate", "active", "web")
	_, err = d.ExecContext(ctx, `INSERT INTO mandates (id, parent_id, issuer_kind, issuer, holder, scope, delegations_left, depth,
		expires_at, signature) SELECT gen_random_uuid(), id, 'agent', 'code-web', 'delegate', '{task.work}', 0, 1, `+soon+`, 'sig'
		FROM mandates WHERE holder = 'code-web'`)
	require.NoError(t, err)

	n, err := expirySvc(d).SweepExpiry(ctx)
	require.NoError(t, err)
	var who []string
	for _, w := range warnings(t, d) {
		who = append(who, w.AgentID)
	}
	require.Equal(t, []string{"barely", "barely"}, who, "both of barely's roots expire within 48 h")
	require.Equal(t, 2, n)
}

func TestOneSweepPerTenMinutesAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	agent(t, d, "runner-web", "active", "web")
	mandate(t, d, "runner-web", "now() + interval '1 day'")
	token(t, d, "runner-web", "now() + interval '1 day'")
	a, b := expirySvc(d), expirySvc(d)

	type result struct {
		ran    bool
		queued int
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	for i, svc := range []*notify.Service{a, b} {
		wg.Go(func() {
			ran, queued, err := svc.TrySweep(ctx)
			require.NoError(t, err)
			results[i] = result{ran, queued}
		})
	}
	wg.Wait()
	require.ElementsMatch(t, []result{{true, 2}, {false, 0}}, results, "one process sweeps")
	require.Len(t, warnings(t, d), 2)
	var left float64
	require.NoError(t, d.NewRaw(`SELECT extract(epoch FROM expires_at - now())::float8 FROM notify_leases WHERE name = 'expiry-sweep'`).Scan(ctx, &left))
	require.InDelta(t, 600, left, 5, "the lease lasts the 10-minute period")

	ran, _, err := b.TrySweep(ctx)
	require.NoError(t, err)
	require.False(t, ran, "not again within the period")
	_, err = d.ExecContext(ctx, `UPDATE notify_leases SET expires_at = now() WHERE name = 'expiry-sweep'`)
	require.NoError(t, err)
	ran, queued, err := b.TrySweep(ctx)
	require.NoError(t, err)
	require.True(t, ran)
	require.Zero(t, queued)
}

func TestTheBoardSweepsAndDeliversExpiryWarnings(t *testing.T) {
	w := newWorld(t)
	d := w.DB
	agent(t, d, "runner-web", "active", "web")
	token(t, d, "runner-web", "now() + interval '1 hour'")
	slack := &recorder{}
	startProcess(w, map[string]string{"PACT_SLACK_WEBHOOK_URL": envSlack, "PACT_EXPIRY_WARN_HOURS": "2"},
		notify.Options{Notifiers: plugins{"slack": slack}})
	eventually(t, 10*time.Second, func() bool { return len(slack.deliveries()) == 1 }, "the warning is delivered")
	require.Equal(t, "expiring", slack.deliveries()[0].N.Kind)
}
