package board

import "context"

// OverviewDays is how many days the overview counts tasks for.
const OverviewDays = 14

// TaskDay is one day of the overview's tasks per day (UTC).
type TaskDay struct {
	Day       string `json:"day" format:"date" bun:"day"`
	Completed int    `json:"completed" doc:"Tasks completed that day" bun:"completed"`
	Failed    int    `json:"failed" doc:"Tasks that failed that day" bun:"failed"`
	Waiting   int    `json:"waiting" doc:"Tasks still waiting on people (approval or a deferred question) since that day" bun:"waiting"`
}

// TaskDays is organization org's tasks per day over the last OverviewDays
// days, oldest first, every day present.
func (s *Service) TaskDays(ctx context.Context, org string) ([]TaskDay, error) {
	return taskDays(ctx, s.db, org, OverviewDays)
}
