package board

import (
	"embed"

	"github.com/pactboard/pact/core/i18n"
)

// The details this module writes for people itself (not an agent's words)
// are in message catalogs (locales/active.<tag>.json, core/i18n). A
// notification gets them in every language (outbox.Notification.DetailIn)
// and core/outbox keeps the one of the organization's language in the
// enqueueing statement, so choosing costs no round trip. Agents' texts
// (tool answers, notes, errors) stay English.

//go:embed locales/active.*.json
var localeFiles embed.FS

// msgID names a message of the catalogs; every constant of this type must
// be in every catalog file (catalog_internal_test.go).
type msgID string

const (
	msgAwaitingSession msgID = "awaiting_session"
	msgMessageCap      msgID = "message_cap"
	msgInputRequired   msgID = "input_required"
)

// mustCatalog parses the embedded catalog files, which the tests parse
// too: it fails only if a broken catalog was built in.
func mustCatalog() *i18n.Catalog {
	c, err := i18n.NewCatalog(localeFiles, "locales")
	if err != nil {
		panic(err)
	}
	return c
}

// texts is message id in every language the board speaks, for
// outbox.Notification.DetailIn.
func texts(cat *i18n.Catalog, id msgID, data map[string]any) map[string]string {
	out := map[string]string{}
	for _, l := range i18n.Languages() {
		out[l] = cat.Text(l, string(id), data)
	}
	return out
}
