package pacts

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// The pact settings (docs/pacts.md "People's side"): the organization's
// open-pact limit per project and each person's unread-nudge threshold.

// OpenLimit reads the organization's open-pact limit per project.
func (s *Service) OpenLimit(ctx context.Context, tx bun.IDB, org string) (int, error) {
	return openLimit(ctx, tx, org, DefaultOpenCap)
}

// SetOpenLimit sets the organization's open-pact limit per project
// (1-1000) as by; pacts already open stay open.
func (s *Service) SetOpenLimit(ctx context.Context, tx bun.IDB, org, by string, limit int) error {
	if limit < 1 || limit > 1000 {
		return errs.E(errs.InvalidRequest, "the open-pact limit is 1-1,000 per project, not %d", limit)
	}
	return putOpenLimit(ctx, tx, org, by, limit)
}

// nudgeChoice is a threshold a person may choose for unread nudges: its
// label and its length in minutes.
type nudgeChoice struct {
	Label   string
	Minutes int
}

func nudgeChoices() []nudgeChoice {
	return []nudgeChoice{{"30m", 30}, {"1h", 60}, {"3h", 180}, {"12h", 720}, {"24h", 1440}}
}

// NudgeAfter reads a person's unread-nudge threshold ("30m" by default).
func (s *Service) NudgeAfter(ctx context.Context, tx bun.IDB, human string) (string, error) {
	mins, set, err := nudgeMinutes(ctx, tx, human)
	if err != nil {
		return "", err
	}
	for _, c := range nudgeChoices() {
		if set && c.Minutes == mins {
			return c.Label, nil
		}
	}
	return nudgeChoices()[0].Label, nil
}

// SetNudgeAfter sets a person's unread-nudge threshold: 30m, 1h, 3h, 12h
// or 24h.
func (s *Service) SetNudgeAfter(ctx context.Context, tx bun.IDB, human, label string) error {
	for _, c := range nudgeChoices() {
		if c.Label == label {
			return putNudgeMinutes(ctx, tx, human, c.Minutes)
		}
	}
	return errs.E(errs.InvalidRequest, "nudge_after is one of 30m, 1h, 3h, 12h or 24h, not %q", label)
}
