package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The A2A push notification configs and their signing keys (migration
// 039), in bun's dialect (?). url, token, credentials and signing_key are
// stored sealed; this file neither seals nor opens them.

// pushRow is a push config as stored.
type pushRow struct {
	ID          string    `bun:"id"`
	OrgID       string    `bun:"org_id"`
	AgentID     string    `bun:"agent_id"`
	TaskID      string    `bun:"task_id"`
	URL         string    `bun:"url"`
	Token       *string   `bun:"token"`
	AuthScheme  *string   `bun:"auth_scheme"`
	Credentials *string   `bun:"credentials"`
	CreatedAt   time.Time `bun:"created_at"`
}

// pushClaim is a config claimed for one delivery: Attempts counts this
// one, and fences the claim's settling; Messages is the task's number of
// messages when it was claimed.
type pushClaim struct {
	pushRow
	Attempts int   `bun:"attempts"`
	Messages int64 `bun:"messages"`
}

// lockPushes serializes the configs of agent on task, so that counting
// them and adding one cannot race another addition.
func (store) lockPushes(ctx context.Context, tx bun.IDB, agent, task string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, "a2a-push:"+agent+":"+task)
	return err
}

// countPushes counts agent's configs on task.
func (store) countPushes(ctx context.Context, tx bun.IDB, agent, task string) (int, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM a2a_push_configs WHERE agent_id = ? AND task_id = ?`, agent, task).Scan(ctx, &n)
	return n, err
}

// insertPush stores a new config, due at once.
func (store) insertPush(ctx context.Context, tx bun.IDB, r pushRow) (time.Time, error) {
	var at time.Time
	err := tx.NewRaw(`INSERT INTO a2a_push_configs (id, org_id, agent_id, task_id, url, token, auth_scheme, credentials)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING created_at`, r.ID, r.OrgID, r.AgentID, r.TaskID, r.URL, r.Token, r.AuthScheme,
		r.Credentials).Scan(ctx, &at)
	if err != nil {
		return at, fmt.Errorf("board: store a push config: %w", err)
	}
	return at, nil
}

// pushes lists agent's configs on task, oldest first, from offset, at most
// limit.
func (store) pushes(ctx context.Context, tx bun.IDB, agent, task string, offset, limit int) ([]pushRow, error) {
	var rows []pushRow
	err := tx.NewRaw(`SELECT id::text AS id, org_id, agent_id, task_id::text AS task_id, url, token, auth_scheme, credentials, created_at
		FROM a2a_push_configs WHERE agent_id = ? AND task_id = ? ORDER BY created_at, id OFFSET ? LIMIT ?`,
		agent, task, offset, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("board: read the push configs of %s on %s: %w", agent, task, err)
	}
	return rows, nil
}

// push reads agent's config id on task; nil when there is none.
func (store) push(ctx context.Context, tx bun.IDB, agent, task, id string) (*pushRow, error) {
	var r pushRow
	err := tx.NewRaw(`SELECT id::text AS id, org_id, agent_id, task_id::text AS task_id, url, token, auth_scheme, credentials, created_at
		FROM a2a_push_configs WHERE agent_id = ? AND task_id = ? AND id = ?`, agent, task, id).Scan(ctx, &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("board: read push config %s: %w", id, err)
	}
	return &r, nil
}

// deletePush removes agent's config id on task, if it is there.
func (store) deletePush(ctx context.Context, tx bun.IDB, agent, task, id string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM a2a_push_configs WHERE agent_id = ? AND task_id = ? AND id = ?`, agent, task, id)
	return err
}

// pushSecret reads agent's sealed signing secret; "" when it has none.
func (store) pushSecret(ctx context.Context, tx bun.IDB, agent string) (string, error) {
	var s []string
	if err := tx.NewRaw(`SELECT signing_key FROM a2a_push_signing WHERE agent_id = ?`, agent).Scan(ctx, &s); err != nil {
		return "", fmt.Errorf("board: read the push secret of %s: %w", agent, err)
	}
	if len(s) == 0 {
		return "", nil
	}
	return s[0], nil
}

// addPushSecret stores sealed as agent's signing secret unless it has one,
// and returns the one it has.
func (st store) addPushSecret(ctx context.Context, tx bun.IDB, agent, org, sealed string) (string, error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO a2a_push_signing (agent_id, org_id, signing_key) VALUES (?, ?, ?)
		ON CONFLICT (agent_id) DO NOTHING`, agent, org, sealed); err != nil {
		return "", fmt.Errorf("board: store the push secret of %s: %w", agent, err)
	}
	return st.pushSecret(ctx, tx, agent)
}

// pushDelivered settles claim c as delivered up to the task's change seq
// and c's messages.
func (store) pushDelivered(ctx context.Context, tx bun.IDB, c *pushClaim, seq int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE a2a_push_configs SET delivered_seq = greatest(delivered_seq, ?),
		delivered_messages = greatest(delivered_messages, ?), attempts = 0, next_attempt_at = now(), last_error = NULL
		WHERE id = ? AND attempts = ? AND dead_at IS NULL`, seq, c.Messages, c.ID, c.Attempts)
	return err
}

// pushLater settles claim c as failed, to be tried again after wait.
func (store) pushLater(ctx context.Context, tx bun.IDB, c *pushClaim, wait time.Duration, why string) error {
	_, err := tx.ExecContext(ctx, `UPDATE a2a_push_configs SET next_attempt_at = now() + make_interval(secs => ?), last_error = ?
		WHERE id = ? AND attempts = ? AND dead_at IS NULL`, wait.Seconds(), why, c.ID, c.Attempts)
	return err
}

// pushDead settles claim c as failed for good: its retries ran out.
func (store) pushDead(ctx context.Context, tx bun.IDB, c *pushClaim, why string) error {
	_, err := tx.ExecContext(ctx, `UPDATE a2a_push_configs SET dead_at = now(), last_error = ?
		WHERE id = ? AND attempts = ? AND dead_at IS NULL`, why, c.ID, c.Attempts)
	return err
}

// sealedA2A reads every sealed value of A2A's: the push configs, the
// agents' push signing keys and the remote agents' credentials, for
// sealing again under the active key: by table, row and column.
func (store) sealedA2A(ctx context.Context, tx bun.IDB) ([]sealedValue, error) {
	var rows []sealedValue
	err := tx.NewRaw(`SELECT 'a2a_push_configs' AS tab, id::text AS row_id, 'url' AS col, url AS value FROM a2a_push_configs
		UNION ALL SELECT 'a2a_push_configs', id::text, 'token', token FROM a2a_push_configs WHERE token IS NOT NULL
		UNION ALL SELECT 'a2a_push_configs', id::text, 'credentials', credentials FROM a2a_push_configs WHERE credentials IS NOT NULL
		UNION ALL SELECT 'a2a_push_signing', agent_id, 'signing_key', signing_key FROM a2a_push_signing
		UNION ALL SELECT 'a2a_remotes', agent_id, 'auth_header', auth_header FROM a2a_remotes WHERE auth_header IS NOT NULL`).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("board: read the sealed A2A values: %w", err)
	}
	return rows, nil
}

// sealedValue is one sealed value: its table, row, column and value.
type sealedValue struct {
	Table string `bun:"tab"`
	Row   string `bun:"row_id"`
	Col   string `bun:"col"`
	Value string `bun:"value"`
}

// resealA2A replaces v's value with sealed, if it is still v's.
func (store) resealA2A(ctx context.Context, tx bun.IDB, v sealedValue, sealed string) error {
	var q string
	switch v.Table + "." + v.Col {
	case "a2a_push_configs.url":
		q = `UPDATE a2a_push_configs SET url = ? WHERE id::text = ? AND url = ?`
	case "a2a_push_configs.token":
		q = `UPDATE a2a_push_configs SET token = ? WHERE id::text = ? AND token = ?`
	case "a2a_push_configs.credentials":
		q = `UPDATE a2a_push_configs SET credentials = ? WHERE id::text = ? AND credentials = ?`
	case "a2a_push_signing.signing_key":
		q = `UPDATE a2a_push_signing SET signing_key = ? WHERE agent_id = ? AND signing_key = ?`
	case "a2a_remotes.auth_header":
		q = `UPDATE a2a_remotes SET auth_header = ? WHERE agent_id = ? AND auth_header = ?`
	default:
		return fmt.Errorf("board: no sealed A2A column %s.%s", v.Table, v.Col)
	}
	_, err := tx.ExecContext(ctx, q, sealed, v.Row, v.Value)
	return err
}
