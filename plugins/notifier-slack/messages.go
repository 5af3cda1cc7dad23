package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// The card's own words (headlines, buttons, the context line) are in
// message catalogs, one file per language (locales/active.<tag>.json), in
// the language the board names in Notification.Language
// (docs/specs/behavior.md §8.7 has the original's Thai). English is the
// default and the fallback of every message, so an older board (no
// language) and a language this plugin lacks both read English. The
// notification's title and detail are the board's and are shown as they
// come. This plugin builds only against the sdk, so it keeps its own
// catalog rather than the board's core/i18n.

//go:embed locales/active.*.json
var localeFiles embed.FS

// msgID names a message of the catalogs; every constant of this type must
// be in every catalog file (messages_test.go).
type msgID string

const (
	msgApprovalNeeded  msgID = "headline_approval_needed"
	msgDeferred        msgID = "headline_deferred"
	msgQuestion        msgID = "headline_question"
	msgTaskClosed      msgID = "headline_task_closed"
	msgAwaitingSession msgID = "headline_awaiting_session"
	msgBrief           msgID = "headline_brief"
	msgExpiring        msgID = "headline_expiring"
	msgExpired         msgID = "headline_expired"
	msgMessage         msgID = "headline_message"
	msgPactDecision    msgID = "headline_pact_decision"
	msgPactUnread      msgID = "headline_pact_unread"
	msgPactStuck       msgID = "headline_pact_stuck"
	msgNoKind          msgID = "headline_none"
	msgOpenTask        msgID = "button_open_task"
	msgOpenBoard       msgID = "button_open_board"
	msgBy              msgID = "context_by"
	msgFor             msgID = "context_for"
)

// catalog renders the messages; built once by newCatalog and never changed.
type catalog struct {
	bundle *i18n.Bundle
	ids    map[string][]string // language tag → message ids, for the tests
}

// newCatalog parses the embedded catalog files.
func newCatalog() (*catalog, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	files, err := fs.Glob(localeFiles, "locales/active.*.json")
	if err != nil {
		return nil, err
	}
	c := &catalog{bundle: b, ids: map[string][]string{}}
	for _, f := range files {
		raw, err := localeFiles.ReadFile(f)
		if err != nil {
			return nil, err
		}
		mf, err := b.ParseMessageFileBytes(raw, f)
		if err != nil {
			return nil, fmt.Errorf("notifier-slack: catalog %s: %w", f, err)
		}
		for _, m := range mf.Messages {
			c.ids[mf.Tag.String()] = append(c.ids[mf.Tag.String()], m.ID)
		}
	}
	if len(c.ids["en"]) == 0 {
		return nil, fmt.Errorf("notifier-slack: no English catalog")
	}
	return c, nil
}

// mustCatalog is newCatalog for the embedded files, which the tests parse:
// it fails only if a broken catalog was built in.
func mustCatalog() *catalog {
	c, err := newCatalog()
	if err != nil {
		panic(err)
	}
	return c
}

// text renders id in lang (a BCP 47 tag; "" is English) with data,
// falling back to English when lang lacks it.
func (c *catalog) text(lang string, id msgID, data map[string]any) string {
	for _, l := range []string{lang, "en"} {
		s, err := i18n.NewLocalizer(c.bundle, l).Localize(&i18n.LocalizeConfig{MessageID: string(id), TemplateData: data})
		if err == nil && s != "" {
			return s
		}
	}
	return string(id)
}
