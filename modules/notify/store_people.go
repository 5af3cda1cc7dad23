package notify

import (
	"context"
	"fmt"
)

// addresseeDisabled reports whether human, the one person a notification
// is for, is disabled now.
func (s *Service) addresseeDisabled(ctx context.Context, human string) (bool, error) {
	var disabled []bool
	if err := s.db.NewRaw(`SELECT disabled_at IS NOT NULL FROM humans WHERE id = ?`, human).Scan(ctx, &disabled); err != nil {
		return false, fmt.Errorf("notify: is %s disabled: %w", human, err)
	}
	return len(disabled) == 1 && disabled[0], nil
}
