package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// Head is who a notification is for and what it is about, without its
// text: what a live view needs to decide whether to tell a person.
type Head struct {
	ID      int64  `bun:"id"`
	OrgID   string `bun:"org_id"`
	Kind    Kind   `bun:"kind"`
	HumanID string `bun:"human_id"`
}

// ReadHead returns the head of notification id, or nil when there is none.
func ReadHead(ctx context.Context, tx bun.IDB, id int64) (*Head, error) {
	var h Head
	err := tx.NewRaw(`SELECT id, org_id, kind, coalesce(human_id, '') AS human_id FROM notifications WHERE id = ?`, id).
		Scan(ctx, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: read notification %d: %w", id, err)
	}
	return &h, nil
}
