package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// An email's own words (subject headline, link labels, the footer) are in
// message catalogs, one file per language (locales/active.<tag>.json), in
// the language the board names in Notification.Language: the recipient's
// (docs/notifications.md, "Email"). English is the default and the
// fallback of every message. The notice's title and detail are the
// board's and are written as they come. Like notifier-slack, this plugin
// builds only against the sdk, so it keeps its own catalog.

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
	msgGreeting        msgID = "greeting"
	msgOpenTask        msgID = "link_open_task"
	msgOpenBoard       msgID = "link_open_board"
	msgOpenInbox       msgID = "link_open_notifications"
	msgSettings        msgID = "link_email_settings"
	msgWhy             msgID = "footer_why"
)

// headline is kind's headline; an unknown kind (a newer board's) gets
// msgNoKind.
func headline(kind string) msgID {
	switch kind {
	case "approval_needed":
		return msgApprovalNeeded
	case "deferred":
		return msgDeferred
	case "question":
		return msgQuestion
	case "task_closed":
		return msgTaskClosed
	case "awaiting_session":
		return msgAwaitingSession
	case "brief":
		return msgBrief
	case "expiring":
		return msgExpiring
	case "expired":
		return msgExpired
	case "message":
		return msgMessage
	case "pact_decision":
		return msgPactDecision
	case "pact_unread":
		return msgPactUnread
	case "pact_stuck":
		return msgPactStuck
	}
	return msgNoKind
}

// linkText is the label of a link the board put in a notification
// (modules/notify's labels), in lang; a label this plugin does not know is
// shown as it comes.
func (c *catalog) linkText(lang, label string) string {
	switch label {
	case "Open task":
		return c.text(lang, msgOpenTask, nil)
	case "Open the board":
		return c.text(lang, msgOpenBoard, nil)
	case "Your notifications":
		return c.text(lang, msgOpenInbox, nil)
	case "Email settings":
		return c.text(lang, msgSettings, nil)
	}
	return label
}

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
			return nil, fmt.Errorf("notifier-email: catalog %s: %w", f, err)
		}
		for _, m := range mf.Messages {
			c.ids[mf.Tag.String()] = append(c.ids[mf.Tag.String()], m.ID)
		}
	}
	if len(c.ids["en"]) == 0 {
		return nil, fmt.Errorf("notifier-email: no English catalog")
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
