package notify

import (
	"context"
	"embed"
	"fmt"

	"github.com/pactboard/pact/core/i18n"
)

// The words this module writes for people, the expiry warnings' titles and
// details (docs/specs/behavior.md §8.8, whose Thai the th catalog keeps),
// are in message catalogs (locales/active.<tag>.json, core/i18n), written
// in the language of the organization the warning goes to. Notifier
// plugins are told that language (notifier.Notification.Language) and
// write their own words (a Slack card's headline and buttons) in it.
// Notifications go to an organization's destinations; one for a single
// person (notifications.human_id, the bell) is told in that person's
// language when they chose one (humans.language), as core/outbox kept its
// detail.

//go:embed locales/active.*.json
var localeFiles embed.FS

// msgID names a message of the catalogs; every constant of this type must
// be in every catalog file (messages_test.go).
type msgID string

const (
	msgMandateExpiring msgID = "expiry_mandate_expiring"
	msgMandateExpired  msgID = "expiry_mandate_expired"
	msgTokenExpiring   msgID = "expiry_token_expiring"
	msgTokenExpired    msgID = "expiry_token_expired"
	msgRenew           msgID = "expiry_renew"
)

// newCatalog parses the embedded catalog files.
func newCatalog() (*i18n.Catalog, error) { return i18n.NewCatalog(localeFiles, "locales") }

// mustCatalog is newCatalog for the embedded files, which the tests parse:
// it fails only if a broken catalog was built in.
func mustCatalog() *i18n.Catalog {
	c, err := newCatalog()
	if err != nil {
		panic(err)
	}
	return c
}

// text renders id in lang with data.
func (s *Service) text(lang string, id msgID, data map[string]any) string {
	return s.cat.Text(lang, string(id), data)
}

// language is the language a notification of organization org is told in:
// that of person human ("" for the organization's people) when they, of
// org, chose one, else the organization's (orgs.language and
// humans.language, core/identity's columns, read here where notify
// delivers).
func (s *Service) language(ctx context.Context, org, human string) (string, error) {
	lang, found, err := languageOf(ctx, s.db, org, human)
	if err != nil {
		return "", fmt.Errorf("notify.language: %w", err)
	}
	if !found {
		return i18n.Default, nil
	}
	return lang, nil
}
