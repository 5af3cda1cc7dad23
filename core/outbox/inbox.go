package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The inbox: each notification's rows for the people it is addressed to
// (AddressedTo), written by Enqueue, read and marked read by each person
// for themselves. Every read here is scoped by the person and their
// organization, so another organization's notices answer as missing ones.

// Filter chooses what ListInbox returns.
type Filter string

// The filters.
const (
	Unread  Filter = "unread"  // not marked read yet
	Waiting Filter = "waiting" // of a kind that asks the person to act (Waits), and still open
	All     Filter = "all"     // everything, read or not
)

// Item is one notification in a person's inbox.
type Item struct {
	ID         int64      `bun:"id" json:"id" doc:"The notification's id"`
	Kind       Kind       `bun:"kind" json:"kind" doc:"What it is about (the outbox's kinds)"`
	Title      string     `bun:"title" json:"title"`
	Detail     string     `bun:"detail" json:"detail,omitempty"`
	ProjectID  string     `bun:"project_id" json:"project_id"`
	TaskID     string     `bun:"task_id" json:"task_id,omitempty"`
	AgentID    string     `bun:"agent_id" json:"agent_id,omitempty"`
	DecisionID string     `bun:"decision_id" json:"decision_id,omitempty"`
	CreatedAt  time.Time  `bun:"created_at" json:"created_at"`
	ReadAt     *time.Time `bun:"read_at" json:"read_at,omitempty" doc:"When the person marked it read; absent while unread"`
	Waiting    bool       `bun:"waiting" json:"waiting" doc:"It asks the person to act and its cause is still open"`
}

// inboxSelect reads a person's items: the notification n joined to its
// inbox row b.
func inboxSelect() string {
	return `SELECT n.id, n.kind, n.title, coalesce(n.detail, '') AS detail, n.project_id,
		coalesce(n.task_id::text, '') AS task_id, coalesce(n.agent_id, '') AS agent_id,
		coalesce(n.decision_id::text, '') AS decision_id, n.created_at, b.read_at, ` + waitingCase() + ` AS waiting
		FROM inbox b JOIN notifications n ON n.id = b.notification_id
		WHERE b.human_id = ? AND b.org_id = ?`
}

// ListInbox returns up to limit items of human's inbox in org, newest
// first, older than before when before > 0.
func ListInbox(ctx context.Context, db bun.IDB, org, human string, f Filter, before int64, limit int) ([]Item, error) {
	q := inboxSelect()
	args := []any{human, org}
	switch f {
	case Unread:
		q += ` AND b.read_at IS NULL`
	case Waiting:
		q += ` AND ` + waitingCase()
	case All:
	default:
		return nil, fmt.Errorf("outbox: unknown inbox filter %q", f)
	}
	if before > 0 {
		q += ` AND n.id < ?`
		args = append(args, before)
	}
	q += ` ORDER BY n.id DESC LIMIT ?`
	args = append(args, limit)
	items := []Item{}
	if err := db.NewRaw(q, args...).Scan(ctx, &items); err != nil {
		return nil, fmt.Errorf("outbox: list the inbox of %s: %w", human, err)
	}
	return items, nil
}

// CountInbox returns how many of human's notices in org are unread, and
// how many still wait on them.
func CountInbox(ctx context.Context, db bun.IDB, org, human string) (unread, waiting int, err error) {
	err = db.NewRaw(`SELECT count(*) FILTER (WHERE b.read_at IS NULL), count(*) FILTER (WHERE `+waitingCase()+`)
		FROM inbox b JOIN notifications n ON n.id = b.notification_id
		WHERE b.human_id = ? AND b.org_id = ?`, human, org).Scan(ctx, &unread, &waiting)
	if err != nil {
		return 0, 0, fmt.Errorf("outbox: count the inbox of %s: %w", human, err)
	}
	return unread, waiting, nil
}

// MarkRead marks notification id read in human's inbox in org; false when
// it is not in that inbox. Marking a read one again keeps its first mark.
func MarkRead(ctx context.Context, db bun.IDB, org, human string, id int64) (bool, error) {
	var found []int64
	err := db.NewRaw(`UPDATE inbox SET read_at = coalesce(read_at, now())
		WHERE human_id = ? AND org_id = ? AND notification_id = ? RETURNING notification_id`, human, org, id).Scan(ctx, &found)
	if err != nil {
		return false, fmt.Errorf("outbox: mark %d read for %s: %w", id, human, err)
	}
	return len(found) == 1, nil
}

// MarkAllRead marks every unread notice of human's inbox in org read, up
// to notification upTo when upTo > 0 (so a notice that arrived after the
// person looked stays unread), and returns how many it marked.
func MarkAllRead(ctx context.Context, db bun.IDB, org, human string, upTo int64) (int, error) {
	q := `UPDATE inbox SET read_at = now() WHERE human_id = ? AND org_id = ? AND read_at IS NULL`
	args := []any{human, org}
	if upTo > 0 {
		q += ` AND notification_id <= ?`
		args = append(args, upTo)
	}
	res, err := db.NewRaw(q+` RETURNING notification_id`, args...).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox: mark the inbox of %s read: %w", human, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// Recipients returns the head of notification id and the people it is
// addressed to; a nil head when there is no such notification.
func Recipients(ctx context.Context, db bun.IDB, id int64) (head *Head, people []string, err error) {
	h, err := ReadHead(ctx, db, id)
	if err != nil || h == nil {
		return nil, nil, err
	}
	people = []string{}
	if err := db.NewRaw(`SELECT human_id FROM inbox WHERE notification_id = ? AND org_id = ? ORDER BY human_id`,
		id, h.OrgID).Scan(ctx, &people); err != nil {
		return nil, nil, fmt.Errorf("outbox: the people of notification %d: %w", id, err)
	}
	return h, people, nil
}
