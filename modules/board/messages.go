package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// TaskMessage is a message on a task's thread: from an agent or a person,
// to an agent or (ToAgent nil) the people.
type TaskMessage struct {
	ID        int64      `bun:"id" json:"id"`
	TaskID    string     `bun:"task_id" json:"task_id"`
	TaskTitle string     `bun:"task_title" json:"task_title"`
	FromAgent *string    `bun:"from_agent" json:"from_agent"`
	FromHuman *string    `bun:"from_human" json:"from_human"`
	ToAgent   *string    `bun:"to_agent" json:"to_agent"`
	Body      string     `bun:"body" json:"body"`
	CreatedAt time.Time  `bun:"created_at" json:"created_at"`
	ReadAt    *time.Time `bun:"read_at" json:"read_at"`
}

// unreadMessages returns up to 50 unread messages to agent in projects,
// oldest first, optionally only on task; markRead marks them read.
func (s *Service) unreadMessages(ctx context.Context, tx bun.IDB, agent string, projects []string, taskID string, markRead bool) ([]messageView, error) {
	rows, err := s.st.unread(ctx, tx, agent, projects, taskID)
	if err != nil {
		return nil, err
	}
	out := make([]messageView, 0, len(rows))
	ids := make([]int64, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.view(true))
		ids = append(ids, r.ID)
	}
	if markRead && len(ids) > 0 {
		if err := s.st.markRead(ctx, tx, ids); err != nil {
			return nil, err
		}
	}
	return out, nil
}
