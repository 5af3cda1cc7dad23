package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Remote A2A agents and the tasks sent to them (a2a_remotes,
// a2a_remote_tasks), in bun's dialect (?).

// remoteAgent is an agent of client a2a-remote and its card.
type remoteAgent struct {
	AgentID       string  `bun:"agent_id"`
	OrgID         string  `bun:"org_id"`
	CardURL       string  `bun:"card_url"`
	Authorization *string `bun:"auth_header"`
}

// remoteTask is a task sent (or to be sent) to a remote agent.
type remoteTask struct {
	TaskID          string  `bun:"task_id"`
	AgentID         string  `bun:"agent_id"`
	OrgID           string  `bun:"org_id"`
	RemoteTaskID    *string `bun:"remote_task_id"`
	RemoteContextID *string `bun:"remote_context_id"`
	// Question marks the remote's status the board handed to people as a
	// question (statusMark); Answered the question whose answer it sent.
	Question *string `bun:"question"`
	Answered *string `bun:"answered"`
}

// setRemote names agent's card and the sealed Authorization it takes.
func (store) setRemote(ctx context.Context, tx bun.IDB, r remoteAgent, by string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO a2a_remotes (agent_id, org_id, card_url, auth_header, set_by)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id) DO UPDATE SET card_url = excluded.card_url,
		auth_header = excluded.auth_header, set_by = excluded.set_by, set_at = now()`,
		r.AgentID, r.OrgID, r.CardURL, r.Authorization, by)
	return err
}

// remote is agent's card, or nil when none is named.
func (store) remote(ctx context.Context, tx bun.IDB, agent string) (*remoteAgent, error) {
	var rs []remoteAgent
	err := tx.NewRaw(`SELECT agent_id, org_id, card_url, auth_header FROM a2a_remotes WHERE agent_id = ?`, agent).Scan(ctx, &rs)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	return &rs[0], nil
}

// leaseRemoteTask takes task's following for follower until now + lease,
// recording which agent it is sent to; false when another follows it.
func (store) leaseRemoteTask(ctx context.Context, tx bun.IDB, task, agent, follower string, lease time.Duration) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO a2a_remote_tasks (task_id, agent_id, follower, lease_until)
		VALUES (?, ?, ?, now() + ?::interval) ON CONFLICT (task_id) DO UPDATE
		SET follower = excluded.follower, lease_until = excluded.lease_until, updated_at = now()
		WHERE a2a_remote_tasks.lease_until IS NULL OR a2a_remote_tasks.lease_until < now()
		   OR a2a_remote_tasks.follower = excluded.follower`, task, agent, follower, lease.String())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// renewRemoteLease extends follower's lease of task to now + lease; false
// when it lost it. A follower that lets go of a task for a while (its
// claim was refused) renews it for that while instead of releasing it.
func (store) renewRemoteLease(ctx context.Context, tx bun.IDB, task, follower string, lease time.Duration) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE a2a_remote_tasks SET lease_until = now() + ?::interval, updated_at = now()
		WHERE task_id = ? AND follower = ?`, lease.String(), task, follower)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// releaseRemoteTask ends follower's lease of task.
func (store) releaseRemoteTask(ctx context.Context, tx bun.IDB, task, follower string) error {
	_, err := tx.ExecContext(ctx, `UPDATE a2a_remote_tasks SET follower = NULL, lease_until = NULL, updated_at = now()
		WHERE task_id = ? AND follower = ?`, task, follower)
	return err
}

// sentRemote records the remote task a task became, and the question
// whose answer the last message carried.
func (store) sentRemote(ctx context.Context, tx bun.IDB, task, remoteID, remoteContext string, answered *string) error {
	_, err := tx.ExecContext(ctx, `UPDATE a2a_remote_tasks SET remote_task_id = ?, remote_context_id = nullif(?, ''),
		answered = coalesce(?, answered), updated_at = now() WHERE task_id = ?`, remoteID, remoteContext, answered, task)
	return err
}

// askedRemote records the remote's status that task hands to people as a
// question.
func (store) askedRemote(ctx context.Context, tx bun.IDB, task, question string) error {
	_, err := tx.ExecContext(ctx, `UPDATE a2a_remote_tasks SET question = ?, updated_at = now() WHERE task_id = ?`, question, task)
	return err
}

// remoteAnswer is the unread message to agent on task that carries answer
// (a person's resume with it, or its poster's pact_reply, wrote it), or 0
// when there is none: the answer is new, not one kept from before.
func (store) remoteAnswer(ctx context.Context, tx bun.IDB, task, agent, answer string) (int64, error) {
	var ids []int64
	err := tx.NewRaw(`SELECT id FROM task_messages WHERE task_id = ?::uuid AND to_agent = ? AND read_at IS NULL AND body = ?
		ORDER BY id DESC LIMIT 1`, task, agent, answer).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}

// readRemote marks read the messages to agent on task up to message upTo:
// the remote agent has them.
func (store) readRemote(ctx context.Context, tx bun.IDB, task, agent string, upTo int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE task_messages SET read_at = now() WHERE task_id = ?::uuid AND to_agent = ?
		AND read_at IS NULL AND id <= ?`, task, agent, upTo)
	return err
}
