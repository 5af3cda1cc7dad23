package pacts

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Summary is one pact in list_pacts.
type Summary struct {
	ID            string  `bun:"id" json:"id" jsonschema:"The pact's id."`
	Name          string  `bun:"name" json:"name" jsonschema:"Its name."`
	ProjectID     string  `bun:"project_id" json:"project_id" jsonschema:"Its project."`
	Purpose       string  `bun:"purpose" json:"purpose" jsonschema:"The first two lines of its purpose."`
	YourSeat      string  `bun:"seat_key" json:"your_seat" jsonschema:"Your seat's key."`
	YourState     string  `bun:"state" json:"your_state" jsonschema:"invited (take it with join_pact), joined or paused."`
	Seats         int     `bun:"seats" json:"seats" jsonschema:"How many seats it has (removed ones included)."`
	OpenDecisions int     `bun:"open_decisions" json:"open_decisions" jsonschema:"How many of its decisions wait for a person."`
	Unread        int     `bun:"unread" json:"unread" jsonschema:"Messages by others since you last read it."`
	Latest        *string `bun:"latest" json:"latest_message,omitempty" jsonschema:"Its latest message's number."`
	Closed        bool    `bun:"closed" json:"closed" jsonschema:"Whether a person closed it."`

	LatestAt *time.Time `bun:"latest_at" json:"-"`
}

// List returns the pacts a sits in, and those with a seat waiting for it,
// in the projects it may read pacts in.
func (s *Service) List(ctx context.Context, tx bun.IDB, a Actor, acc Access) ([]Summary, error) {
	out, err := seatedSummaries(ctx, tx, a, acc.Read)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Purpose = firstLines(out[i].Purpose, 2)
	}
	if out == nil {
		out = []Summary{}
	}
	return out, nil
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
