package pacts

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// The pact settings: the organization's (pact_org_settings) and each
// person's (pact_person_settings).

// openLimit reads org's open-pact limit per project, def when it set none.
func openLimit(ctx context.Context, tx bun.IDB, org string, def int) (int, error) {
	var n int
	err := tx.NewRaw(`SELECT coalesce((SELECT open_limit FROM pact_org_settings WHERE org_id = ?), ?)`, org, def).Scan(ctx, &n)
	if err != nil {
		return 0, fmt.Errorf("pacts: read the open-pact limit of %s: %w", org, err)
	}
	return n, nil
}

// putOpenLimit stores org's open-pact limit per project, set by by.
func putOpenLimit(ctx context.Context, tx bun.IDB, org, by string, limit int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO pact_org_settings (org_id, open_limit, updated_by) VALUES (?, ?, ?)
		ON CONFLICT (org_id) DO UPDATE SET open_limit = excluded.open_limit, updated_by = excluded.updated_by, updated_at = now()`,
		org, limit, by)
	if err != nil {
		return fmt.Errorf("pacts: set the open-pact limit of %s: %w", org, err)
	}
	return nil
}

// nudgeMinutes reads person human's unread-nudge threshold in minutes; set
// false when they chose none.
func nudgeMinutes(ctx context.Context, tx bun.IDB, human string) (mins int, set bool, err error) {
	var rows []int
	if err := tx.NewRaw(`SELECT (extract(epoch FROM nudge_after) / 60)::int FROM pact_person_settings WHERE human_id = ?`,
		human).Scan(ctx, &rows); err != nil {
		return 0, false, fmt.Errorf("pacts: read the settings of %s: %w", human, err)
	}
	if len(rows) != 1 {
		return 0, false, nil
	}
	return rows[0], true, nil
}

// putNudgeMinutes stores person human's unread-nudge threshold, in minutes.
func putNudgeMinutes(ctx context.Context, tx bun.IDB, human string, mins int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO pact_person_settings (human_id, nudge_after) VALUES (?, make_interval(mins => ?))
		ON CONFLICT (human_id) DO UPDATE SET nudge_after = excluded.nudge_after, updated_at = now()`, human, mins)
	if err != nil {
		return fmt.Errorf("pacts: set the nudge threshold of %s: %w", human, err)
	}
	return nil
}
