package mandate

import (
	"context"
	"maps"
	"slices"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// Consume adds amounts to every link of chain that limits the key. Usage is a
// running total per link, so children split from one parent share its
// ceiling. Links are visited root first and keys in sorted order, and each
// usage row is created if missing and locked FOR UPDATE before it is read, so
// concurrent spenders on one tree queue on the same rows in the same order
// and can never overspend a ceiling together. Zero amounts and keys a link
// does not limit are skipped.
//
// strict refuses with LimitExceeded "k: U used + A requested is above C on
// mandate M" (mandate_id = M) at the first link the amount would take over
// its ceiling; earlier links may already have been counted, so the caller
// must roll its transaction back (which it does on any error). Without strict
// the amount is recorded anyway (usage that already happened, like the turns
// a finished run took) and the keys that went over are returned, each once,
// sorted. It returns InvalidRequest "amount k=v must be a number of at least
// 0" for a negative or non-finite amount.
func (s *Service) Consume(ctx context.Context, tx bun.IDB, chain Chain, amounts map[string]float64, strict bool) (over []string, err error) {
	if err := checkLimits(amounts, "amount"); err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(amounts))
	exceeded := map[string]bool{}
	for _, m := range chain {
		mid := m.ID.String()
		for _, k := range keys {
			amount := amounts[k]
			ceiling, limited := m.Limits[k]
			if !limited || amount == 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, ensureUsageSQL, mid, k); err != nil {
				return nil, errs.Wrap(err, "create limit usage")
			}
			var used float64
			if err := tx.QueryRowContext(ctx, lockUsageSQL, mid, k).Scan(&used); err != nil {
				return nil, errs.Wrap(err, "lock limit usage")
			}
			if used+amount > ceiling {
				if strict {
					return nil, errs.Mandate(errs.LimitExceeded, mid, "%s: %s used + %s requested is above %s on mandate %s",
						k, pyG(used), pyG(amount), pyG(ceiling), mid)
				}
				exceeded[k] = true
			}
			if _, err := tx.ExecContext(ctx, addUsageSQL, amount, mid, k); err != nil {
				return nil, errs.Wrap(err, "add limit usage")
			}
		}
	}
	if len(exceeded) == 0 {
		return nil, nil
	}
	return slices.Sorted(maps.Keys(exceeded)), nil
}

// Remaining returns what is left of every limit in chain: per key, the
// smallest max(ceiling - used, 0) over the links that limit it. A key no link
// limits is unlimited and absent, so an empty map means the chain has no
// limits at all. It reads the usage rows without locking them.
func (s *Service) Remaining(ctx context.Context, tx bun.IDB, chain Chain) (map[string]float64, error) {
	left := map[string]float64{}
	var ids []string
	for _, m := range chain {
		if len(m.Limits) > 0 {
			ids = append(ids, m.ID.String())
		}
	}
	if len(ids) == 0 {
		return left, nil
	}
	used := map[[2]string]float64{}
	rows, err := tx.QueryContext(ctx, usageSQL, pgArray(ids))
	if err != nil {
		return nil, errs.Wrap(err, "read limit usage")
	}
	defer rows.Close()
	for rows.Next() {
		var id, key string
		var u float64
		if err := rows.Scan(&id, &key, &u); err != nil {
			return nil, errs.Wrap(err, "read limit usage")
		}
		used[[2]string{id, key}] = u
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "read limit usage")
	}
	for _, m := range chain {
		for k, ceiling := range m.Limits {
			room := max(ceiling-used[[2]string{m.ID.String(), k}], 0)
			if prev, ok := left[k]; !ok || room < prev {
				left[k] = room
			}
		}
	}
	return left, nil
}
