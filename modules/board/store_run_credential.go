package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// issueRunCredentialSQL stores a per-run credential for task $3 while it
// is working under agent $2's claim, bound to that claim's claimed_at, and
// returns when it expires; no row when the claim is gone.
const issueRunCredentialSQL = `INSERT INTO run_credentials (token_hash, agent_id, task_id, claimed_at, mandate_id, tools, expires_at)
	SELECT $1, $2, t.id, t.claimed_at, $4::uuid, $5, now() + make_interval(secs => $6)
	  FROM tasks t WHERE t.id = $3::uuid AND t.status = 'working' AND t.assignee = $2 AND t.claimed_at IS NOT NULL
	RETURNING expires_at`

// liveRunCredentialSQL reads per-run credential $1 of agent $2 while it
// lives: unexpired, and its task still working under the claim it was
// issued for (migration 033).
const liveRunCredentialSQL = `SELECT r.task_id::text, r.mandate_id::text, r.tools, r.expires_at
	  FROM run_credentials r JOIN tasks t ON t.id = r.task_id
	 WHERE r.token_hash = $1 AND r.agent_id = $2 AND r.expires_at > now()
	   AND t.status = 'working' AND t.assignee = r.agent_id AND t.claimed_at = r.claimed_at`

// runCredentialRow is liveRunCredentialSQL's row.
type runCredentialRow struct {
	TaskID    string    `bun:"task_id"`
	MandateID string    `bun:"mandate_id"`
	Tools     []string  `bun:"tools,array"`
	ExpiresAt time.Time `bun:"expires_at"`
}

// insertRunCredential stores the credential whose token hashes to hash;
// ok is false when task is no longer working under agent's claim.
func (st store) insertRunCredential(ctx context.Context, tx bun.IDB, hash, agent, taskID, mandateID string, tools []string,
	ttl time.Duration) (expires time.Time, ok bool, err error) {
	var rows []time.Time
	err = st.db.Fetch(ctx, tx, &rows, issueRunCredentialSQL, hash, agent, taskID, mandateID, tools, ttl.Seconds())
	if err != nil || len(rows) == 0 {
		return time.Time{}, false, err
	}
	return rows[0], true, nil
}

// liveRunCredential reads the credential whose token hashes to hash, of
// agent, while it lives; nil otherwise.
func (st store) liveRunCredential(ctx context.Context, tx bun.IDB, hash, agent string) (*runCredentialRow, error) {
	var rows []runCredentialRow
	if err := st.db.Fetch(ctx, tx, &rows, liveRunCredentialSQL, hash, agent); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}
