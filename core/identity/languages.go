package identity

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/i18n"
)

// The languages people read the board's texts in (core/i18n): one per
// organization, and optionally one per person that overrides it where a
// text addresses that person alone. The columns are orgs.language and
// humans.language (migrations/015_languages.sql); their writes are here.

// SetOrgLanguage sets org's language, in tx. Refusal: invalid_request for a
// language the board does not speak.
func (s *Service) SetOrgLanguage(ctx context.Context, tx bun.IDB, org, lang string) error {
	l, err := i18n.Check(lang)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE orgs SET language = ? WHERE id = ?`, l, org)
	return translate(err, "organization "+org)
}

// SetHumanLanguage sets person id's own language, in tx, and returns the
// row; nil clears it, so they follow their organization again. Refusal:
// invalid_request for a language the board does not speak.
func (s *Service) SetHumanLanguage(ctx context.Context, tx bun.IDB, id string, lang *string) (*Person, error) {
	var l *string
	if lang != nil {
		v, err := i18n.Check(*lang)
		if err != nil {
			return nil, err
		}
		l = &v
	}
	var p Person
	err := tx.NewRaw(`UPDATE humans SET language = ? WHERE id = ? RETURNING `+personCols, l, id).Scan(ctx, &p)
	if err != nil {
		return nil, translate(err, "human "+id)
	}
	return &p, nil
}

// OrgLanguage is the language of organization org ("en" when it has
// none, or does not exist).
func (s *Service) OrgLanguage(ctx context.Context, tx bun.IDB, org string) (string, error) {
	var langs []string
	if err := tx.NewRaw(`SELECT language FROM orgs WHERE id = ?`, org).Scan(ctx, &langs); err != nil {
		return "", fmt.Errorf("identity.OrgLanguage: %w", err)
	}
	if len(langs) == 0 {
		return i18n.Default, nil
	}
	return langs[0], nil
}

// PersonLanguage is the language a text addressed to person id alone is
// written in: their own choice, else their organization's, else English.
func (s *Service) PersonLanguage(ctx context.Context, tx bun.IDB, id string) (string, error) {
	var langs []string
	err := tx.NewRaw(`SELECT coalesce(h.language, o.language) FROM humans h JOIN orgs o ON o.id = h.org_id
		WHERE h.id = ?`, id).Scan(ctx, &langs)
	if err != nil {
		return "", fmt.Errorf("identity.PersonLanguage: %w", err)
	}
	if len(langs) == 0 {
		return i18n.Default, nil
	}
	return langs[0], nil
}
