package notify

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/outbox"
)

// The rows of people's email (docs/notifications.md, "Email"): their
// choices (email_choices, migration 035) and, per notification, the people
// it is emailed to.

// emailRecipient is one person a notification is emailed to: addressed to
// them (their inbox row), enabled, and having chosen its kind.
type emailRecipient struct {
	HumanID  string  `bun:"human_id"`
	Name     string  `bun:"name"`
	Email    string  `bun:"email"` // "" when the person has no address
	Language string  `bun:"language"`
	Sent     bool    `bun:"sent"`
	Failed   bool    `bun:"failed"`
	Detail   *string `bun:"detail"`
}

// emailKeyPrefix and a person's id make the notification_deliveries
// destination of their email.
const emailKeyPrefix = "email:"

// emailRecipients lists the people notification id (of kind) is emailed
// to, each with what earlier attempts settled for them: the people it is
// addressed to (core/outbox.Recipients, their inbox) who are enabled and
// chose its kind.
func (s *Service) emailRecipients(ctx context.Context, id int64, kind string) ([]emailRecipient, error) {
	head, people, err := outbox.Recipients(ctx, s.db, id)
	if err != nil || head == nil || len(people) == 0 {
		return nil, err
	}
	var rs []emailRecipient
	err = s.db.NewRaw(`SELECT h.id AS human_id, h.name, coalesce(h.email, '') AS email,
		       coalesce(h.language, o.language) AS language,
		       x.sent_at IS NOT NULL AS sent, x.failed_at IS NOT NULL AS failed, x.detail
		FROM humans h
		JOIN orgs o ON o.id = h.org_id
		JOIN email_choices c ON c.human_id = h.id AND c.org_id = h.org_id AND c.kind = ?
		LEFT JOIN notification_deliveries x ON x.notification_id = ? AND x.destination = ? || h.id
		WHERE h.id = ANY(?::text[]) AND h.org_id = ? AND h.disabled_at IS NULL
		ORDER BY h.id`, kind, id, emailKeyPrefix, pgdialect.Array(people), head.OrgID).Scan(ctx, &rs)
	if err != nil {
		return nil, fmt.Errorf("notify: who notification %d is emailed to: %w", id, err)
	}
	return rs, nil
}

// emailChoicesOf returns the kinds human of org has emailed and their
// address ("" for none).
func (s *Service) emailChoicesOf(ctx context.Context, org, human string) (kinds []string, address string, err error) {
	var addr []string
	if err := s.db.NewRaw(`SELECT coalesce(email, '') FROM humans WHERE id = ? AND org_id = ?`, human, org).Scan(ctx, &addr); err != nil {
		return nil, "", fmt.Errorf("notify: %s's email address: %w", human, err)
	}
	if len(addr) == 1 {
		address = addr[0]
	}
	kinds = []string{}
	if err := s.db.NewRaw(`SELECT kind FROM email_choices WHERE human_id = ? AND org_id = ? ORDER BY kind`, human, org).
		Scan(ctx, &kinds); err != nil {
		return nil, "", fmt.Errorf("notify: %s's email choices: %w", human, err)
	}
	return kinds, address, nil
}

// setEmailChoices makes kinds exactly the kinds human of org has emailed.
func (s *Service) setEmailChoices(ctx context.Context, org, human string, kinds []string) error {
	return s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM email_choices WHERE human_id = ? AND org_id = ? AND NOT (kind = ANY(?::text[]))`,
			human, org, pgdialect.Array(kinds)); err != nil {
			return fmt.Errorf("notify: set %s's email choices: %w", human, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO email_choices (human_id, org_id, kind)
			SELECT ?, ?, k FROM unnest(?::text[]) k ON CONFLICT DO NOTHING`, human, org, pgdialect.Array(kinds)); err != nil {
			return fmt.Errorf("notify: set %s's email choices: %w", human, err)
		}
		return nil
	})
}
