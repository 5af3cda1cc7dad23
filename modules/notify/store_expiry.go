package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/outbox"
)

// The expiry sweep's rows: its lease (notify_leases) and the warnings it
// queued already (expiry_notices), and the subjects it reads from
// core/identity's and core/mandate's tables.

// takeLease gives the lease name to owner for d, unless another owner
// holds it unexpired; it reports whether owner has it now.
func takeLease(ctx context.Context, q bun.IDB, name, owner string, d time.Duration) (bool, error) {
	var owners []string
	err := q.NewRaw(`INSERT INTO notify_leases (name, owner, expires_at)
		VALUES (?, ?, now() + make_interval(secs => ?))
		ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
		WHERE notify_leases.expires_at <= now()
		RETURNING owner`, name, owner, d.Seconds()).Scan(ctx, &owners)
	return len(owners) > 0, err
}

// expiringSubjects lists the subjects to warn of now, as [Service.sweep]
// says which, by agent, what and ref; warn is how long before an expiry a
// warning is due.
func expiringSubjects(ctx context.Context, q bun.IDB, warn time.Duration) ([]expiring, error) {
	var subjects []expiring
	err := q.NewRaw(`WITH subjects AS (
		    SELECT 'mandate' AS what, m.id::text AS ref, m.holder AS agent_id, m.expires_at
		    FROM mandates m JOIN agents a ON a.id = m.holder
		    WHERE m.issuer_kind = 'human' AND m.revoked_at IS NULL
		      AND a.status = 'active' AND a.replaced_by IS NULL
		      AND NOT EXISTS (SELECT 1 FROM mandates r
		                      WHERE r.holder = m.holder AND r.issuer_kind = 'human' AND r.revoked_at IS NULL
		                        AND r.created_at > m.created_at AND r.expires_at > m.expires_at + interval '1 hour')
		    UNION ALL
		    (SELECT DISTINCT ON (t.agent_id) 'token', t.agent_id, t.agent_id, t.expires_at
		     FROM agent_tokens t JOIN agents a ON a.id = t.agent_id
		     WHERE t.revoked_at IS NULL AND a.status = 'active' AND a.replaced_by IS NULL
		     ORDER BY t.agent_id, t.expires_at DESC))
		SELECT s.what, s.ref, s.agent_id, p.project_id, s.expires_at, s.expires_at <= now() AS expired,
		       (SELECT o.language FROM agents g JOIN orgs o ON o.id = g.org_id WHERE g.id = s.agent_id) AS language
		FROM subjects s
		JOIN LATERAL (SELECT min(project_id) AS project_id FROM agent_projects WHERE agent_id = s.agent_id) p ON p.project_id IS NOT NULL
		WHERE s.expires_at <= now() + make_interval(secs => ?) AND s.expires_at > now() - interval '1 day'
		ORDER BY s.agent_id, s.what, s.ref`, warn.Seconds()).Scan(ctx, &subjects)
	if err != nil {
		return nil, fmt.Errorf("notify.sweep: %w", err)
	}
	return subjects, nil
}

// noteWarning records that subject was warned of at stage, and reports
// whether that is new (false: warned of already).
func noteWarning(ctx context.Context, q bun.IDB, subject string, stage outbox.Kind) (bool, error) {
	var fresh []string
	err := q.NewRaw(`INSERT INTO expiry_notices (subject, stage) VALUES (?, ?)
		ON CONFLICT DO NOTHING RETURNING subject`, subject, stage).Scan(ctx, &fresh)
	return len(fresh) > 0, err
}
