package pacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The thread (pact_messages), the decisions (pact_decisions) and the zones
// (pact_sections) of a pact.

// messageColumns are a MessageView's, from pact_messages m joined with
// its feed row f.
const messageColumns = `m.number, m.seat_key, m.author, m.body, coalesce(m.reply_to, '') AS reply_to, m.status, m.feed_id,
	f.seq AS cursor, m.created_at`

// messages reads pact's messages after number since of org's feed (all
// when 0), oldest first, at most limit.
func messages(ctx context.Context, tx bun.IDB, pact, org string, since int64, limit int) ([]MessageView, error) {
	var out []MessageView
	err := tx.NewRaw(`SELECT * FROM (SELECT `+messageColumns+` FROM pact_messages m JOIN pact_feed f ON f.id = m.feed_id
		WHERE m.pact_id = ? AND m.feed_id > `+feedBoundSQL+` ORDER BY m.feed_id DESC LIMIT ?) m ORDER BY feed_id`,
		pact, org, since, limit).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the thread of %s: %w", pact, err)
	}
	for i := range out {
		out[i].At = iso(out[i].CreatedAt)
	}
	return out, nil
}

// decisions reads pact's decisions that are open or changed after
// number since of org's feed.
func decisions(ctx context.Context, tx bun.IDB, pact, org string, since int64) ([]DecisionView, error) {
	var out []DecisionView
	err := tx.NewRaw(`SELECT id::text AS id, seat_key, raised_by, question, options, raised_at, answer, answer_kind, answered_by,
			answered_at, feed_id, answer_feed
		FROM pact_decisions, (SELECT `+feedBoundSQL+` AS after) b
		WHERE pact_id = ? AND (answer IS NULL OR feed_id > b.after OR answer_feed > b.after) ORDER BY raised_at`,
		org, since, pact).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the decisions of %s: %w", pact, err)
	}
	for i := range out {
		out[i].fill()
	}
	return out, nil
}

type sectionRow struct {
	Key       string     `bun:"seat_key"`
	Body      string     `bun:"body"`
	Version   int        `bun:"version"`
	UpdatedAt *time.Time `bun:"updated_at"`
}

// sections reads pact's zones: all of them, or (changed) those written
// after number since of org's feed.
func sections(ctx context.Context, tx bun.IDB, pact, org string, changed bool, since int64) ([]SectionView, error) {
	var rows []sectionRow
	if err := tx.NewRaw(`SELECT s.seat_key, s.body, s.version, s.updated_at FROM pact_sections s
		JOIN pact_seats st ON st.pact_id = s.pact_id AND st.key = s.seat_key
		WHERE s.pact_id = ? AND (NOT ? OR s.feed_id > `+feedBoundSQL+`) ORDER BY st.invited_at, s.seat_key`,
		pact, changed, org, since).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("pacts: read the sections of %s: %w", pact, err)
	}
	out := make([]SectionView, 0, len(rows))
	for _, r := range rows {
		v := SectionView{Key: r.Key, Body: r.Body, Version: r.Version}
		if r.UpdatedAt != nil {
			v.UpdatedAt = new(iso(*r.UpdatedAt))
		}
		out = append(out, v)
	}
	return out, nil
}

// threadUpto reads the latest limit messages of pact up to the feed row
// upto (an id; -1: the latest), oldest first.
func threadUpto(ctx context.Context, tx bun.IDB, pact string, upto int64, limit int) ([]MessageView, error) {
	var ms []MessageView
	err := tx.NewRaw(`SELECT * FROM (SELECT `+messageColumns+` FROM pact_messages m JOIN pact_feed f ON f.id = m.feed_id
		WHERE m.pact_id = ? AND (? < 0 OR m.feed_id <= ?) ORDER BY m.feed_id DESC LIMIT ?) m ORDER BY feed_id`,
		pact, upto, upto, limit).Scan(ctx, &ms)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the thread of %s: %w", pact, err)
	}
	for i := range ms {
		ms[i].At = iso(ms[i].CreatedAt)
	}
	return ms, nil
}

// threadHead counts pact's messages and answers the id and the number (in
// the organization's feed) of its newest feed row.
func threadHead(ctx context.Context, tx bun.IDB, pact string) (count int, head, seq int64, err error) {
	if err := tx.NewRaw(`SELECT (SELECT count(*) FROM pact_messages WHERE pact_id = ?), coalesce(max(id), 0), coalesce(max(seq), 0)
		FROM pact_feed WHERE pact_id = ?`, pact, pact).Scan(ctx, &count, &head, &seq); err != nil {
		return 0, 0, 0, fmt.Errorf("pacts: count the thread of %s: %w", pact, err)
	}
	return count, head, seq, nil
}

// messageAuthor reads who wrote message number of pact; found false when
// it has none.
func messageAuthor(ctx context.Context, tx bun.IDB, pact, number string) (author string, found bool, err error) {
	var authors []string
	if err := tx.NewRaw(`SELECT author FROM pact_messages WHERE pact_id = ? AND number = ?`, pact, number).Scan(ctx, &authors); err != nil {
		return "", false, fmt.Errorf("pacts: read %s in %s: %w", number, pact, err)
	}
	if len(authors) == 0 {
		return "", false, nil
	}
	return authors[0], true, nil
}

// postMessage appends message number of seat, body by f.Actor, to its pact's
// thread with the feed row f that records it, in one statement
// (appendFeedWith): the row, the message with the row's id, the seat moved
// to its next number and, when mark is set, the seat's message replyTo
// marked with it (the trigger of migration 017 checks it is the actor's).
func postMessage(ctx context.Context, tx bun.IDB, seat *seatRow, f feedItem, number, body, replyTo, mark string) (feedPos, error) {
	with := `, posted AS (INSERT INTO pact_messages (pact_id, number, seat_key, prefix, seq, author, body, reply_to, feed_id)
			SELECT ?, ?, ?, ?, ?, ?, ?, nullif(?, ''), f.id FROM f),
		numbered AS (UPDATE pact_seats s SET next_number = s.next_number + 1 FROM f WHERE s.pact_id = ? AND s.key = ?)`
	args := []any{seat.PactID, number, seat.Key, seat.Prefix, seat.NextNumber, f.Actor, body, replyTo, seat.PactID, seat.Key}
	if mark != "" {
		with += `, marked AS (UPDATE pact_messages m SET status = ? FROM f WHERE m.pact_id = ? AND m.number = ?)`
		args = append(args, mark, seat.PactID, replyTo)
	}
	pos, err := appendFeedWith(ctx, tx, f, with, args...)
	if err != nil {
		return feedPos{}, fmt.Errorf("pacts: post %s in %s: %w", number, seat.PactID, err)
	}
	return pos, nil
}

// insertDecision records seat's decision, raised by by, with its feed row
// feed, and answers its id.
func insertDecision(ctx context.Context, tx bun.IDB, seat *seatRow, by, question string, options []string, feed int64) (string, error) {
	var id string
	if err := tx.NewRaw(`INSERT INTO pact_decisions (pact_id, seat_key, raised_by, question, options, feed_id)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id::text`, seat.PactID, seat.Key, by, question, pgdialect.Array(options), feed).Scan(ctx, &id); err != nil {
		return "", fmt.Errorf("pacts: raise a decision in %s: %w", seat.PactID, err)
	}
	return id, nil
}

// answerable is a decision as a person's answer needs it.
type answerable struct {
	PactID    string     `bun:"pact_id"`
	ProjectID string     `bun:"project_id"`
	Options   []string   `bun:"options,array"`
	ReadAt    *time.Time `bun:"read_at"`
	ClosedAt  *time.Time `bun:"closed_at"`
}

// decisionToAnswer reads, locked, decision id of org with its pact; nil
// when org has none.
func decisionToAnswer(ctx context.Context, tx bun.IDB, org, id string) (*answerable, error) {
	var d answerable
	err := tx.NewRaw(`SELECT d.pact_id::text AS pact_id, p.project_id, d.options, d.read_at, p.closed_at
		FROM pact_decisions d JOIN pacts p ON p.id = d.pact_id WHERE d.id = ?::uuid AND p.org_id = ? FOR UPDATE OF d`,
		id, org).Scan(ctx, &d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pacts: read decision %s: %w", id, err)
	}
	return &d, nil
}

// takeAnsweringPath marks the transaction as a person's answer: the
// trigger of migration 017 accepts an answer only then.
func takeAnsweringPath(ctx context.Context, tx bun.IDB) error {
	if _, err := tx.ExecContext(ctx, `SELECT set_config('pact.answering', 'person', true)`); err != nil {
		return fmt.Errorf("pacts: take the answering path: %w", err)
	}
	return nil
}

// answerDecision stores person by's answer to decision id at at, with its
// feed row feed. Its error is the database's, for the caller to word.
func answerDecision(ctx context.Context, tx bun.IDB, id, kind, text, by string, at time.Time, feed int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE pact_decisions SET answer = ?, answer_kind = ?, answered_by = ?, answered_at = ?,
		answer_feed = ? WHERE id = ?::uuid`, text, kind, by, at, feed, id)
	return err
}
