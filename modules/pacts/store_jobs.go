package pacts

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The lists of pacts: the people's Jobs list, an actor's own pacts
// (list_pacts) and the decisions waiting for a person.

// jobRow is a pact in the Jobs list, with its latest message if any.
type jobRow struct {
	ID            string     `bun:"id"`
	Name          string     `bun:"name"`
	ProjectID     string     `bun:"project_id"`
	Purpose       string     `bun:"purpose"`
	OpenDecisions int        `bun:"open_decisions"`
	Closed        bool       `bun:"closed"`
	CreatedAt     time.Time  `bun:"created_at"`
	Number        *string    `bun:"number"`
	Seat          *string    `bun:"seat_key"`
	Author        *string    `bun:"author"`
	At            *time.Time `bun:"at"`
}

// pactJobs reads the pacts of org in projects (project, when set, alone):
// open ones first, the most recently active first, at most 500.
func pactJobs(ctx context.Context, tx bun.IDB, org string, projects []string, project string) ([]jobRow, error) {
	var rows []jobRow
	err := tx.NewRaw(`SELECT p.id::text AS id, p.name, p.project_id, p.purpose, p.closed_at IS NOT NULL AS closed, p.created_at,
			(SELECT count(*) FROM pact_decisions d WHERE d.pact_id = p.id AND d.answer IS NULL) AS open_decisions,
			l.number, l.seat_key, l.author, l.created_at AS at
		FROM pacts p
		LEFT JOIN LATERAL (SELECT number, seat_key, author, created_at FROM pact_messages m WHERE m.pact_id = p.id
			ORDER BY feed_id DESC LIMIT 1) l ON true
		WHERE p.org_id = ? AND p.project_id = ANY(?) AND (? = '' OR p.project_id = ?)
		ORDER BY p.closed_at IS NOT NULL, coalesce(l.created_at, p.created_at) DESC LIMIT 500`,
		org, pgdialect.Array(projects), project, project).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pacts: list the pacts of %s: %w", org, err)
	}
	return rows, nil
}

// seatedSummaries reads the pacts of a's organization in projects where a
// holds a seat that was not removed (joined or waiting): open ones first,
// the most recently active first.
func seatedSummaries(ctx context.Context, tx bun.IDB, a Actor, projects []string) ([]Summary, error) {
	col, id := actorColumn(a)
	var out []Summary
	err := tx.NewRaw(`SELECT p.id::text AS id, p.name, p.project_id, p.purpose, st.key AS seat_key,
			CASE WHEN st.joined_at IS NULL THEN 'invited' WHEN st.paused_at IS NOT NULL THEN 'paused' ELSE 'joined' END AS state,
			(SELECT count(*) FROM pact_seats x WHERE x.pact_id = p.id) AS seats,
			(SELECT count(*) FROM pact_decisions d WHERE d.pact_id = p.id AND d.answer IS NULL) AS open_decisions,
			(SELECT count(*) FROM pact_messages m WHERE m.pact_id = p.id AND m.feed_id > st.read_upto AND m.seat_key <> st.key) AS unread,
			l.number AS latest, l.created_at AS latest_at, p.closed_at IS NOT NULL AS closed
		FROM pact_seats st JOIN pacts p ON p.id = st.pact_id
		LEFT JOIN LATERAL (SELECT number, created_at FROM pact_messages m WHERE m.pact_id = p.id ORDER BY feed_id DESC LIMIT 1) l ON true
		WHERE st.`+col+` = ? AND st.removed_at IS NULL AND p.org_id = ? AND p.project_id = ANY(?)
		ORDER BY p.closed_at IS NOT NULL, coalesce(l.created_at, p.created_at) DESC`, id, a.Org, pgdialect.Array(projects)).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: list the pacts of %s: %w", a, err)
	}
	return out, nil
}

// openQuestions reads the open decisions of org's open pacts in projects,
// and with answered those person human answered that the raising agent
// has not read, oldest first, at most 500.
func openQuestions(ctx context.Context, tx bun.IDB, org string, projects []string, answered bool, human string) ([]PactQuestion, error) {
	var out []PactQuestion
	err := tx.NewRaw(`SELECT d.id::text AS id, d.pact_id::text AS pact_id, p.name AS pact_name, p.project_id, d.seat_key,
			st.display_name, d.raised_by, d.question, d.options, d.raised_at,
			d.answer_kind, d.answer, d.answered_by, d.answered_at
		FROM pact_decisions d JOIN pacts p ON p.id = d.pact_id
		JOIN pact_seats st ON st.pact_id = d.pact_id AND st.key = d.seat_key
		WHERE p.org_id = ? AND p.project_id = ANY(?) AND p.closed_at IS NULL
		  AND (d.answer IS NULL OR (? AND d.answered_by = ? AND d.read_at IS NULL))
		ORDER BY d.raised_at, d.id LIMIT 500`, org, pgdialect.Array(projects), answered, human).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the open decisions of %s: %w", org, err)
	}
	return out, nil
}
