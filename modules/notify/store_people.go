package notify

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// What notify reads of people and organizations (core/identity's tables)
// where it delivers.

// addresseeDisabled reports whether human, the one person a notification
// is for, is disabled now.
func (s *Service) addresseeDisabled(ctx context.Context, human string) (bool, error) {
	var disabled []bool
	if err := s.db.NewRaw(`SELECT disabled_at IS NOT NULL FROM humans WHERE id = ?`, human).Scan(ctx, &disabled); err != nil {
		return false, fmt.Errorf("notify: is %s disabled: %w", human, err)
	}
	return len(disabled) == 1 && disabled[0], nil
}

// languageOf is the language of person human of org ("" for none) when
// they chose one, else org's; found is false when org is none.
func languageOf(ctx context.Context, q bun.IDB, org, human string) (lang string, found bool, err error) {
	var langs []string
	err = q.NewRaw(`SELECT coalesce(h.language, o.language) FROM orgs o
		LEFT JOIN humans h ON h.id = ? AND h.org_id = o.id WHERE o.id = ?`, nullable(human), org).Scan(ctx, &langs)
	if err != nil || len(langs) == 0 {
		return "", false, err
	}
	return langs[0], true, nil
}
