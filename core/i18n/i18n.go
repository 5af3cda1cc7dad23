// Package i18n is the board's message catalogs for people: the languages
// the board speaks, the check of a language someone chose, and a Catalog
// that renders a message of a module's embedded catalog files in one of
// them (github.com/nicksnyder/go-i18n). English is the default and the
// fallback of every message. Texts for agents (tool descriptions, errors)
// stay English and never go through a catalog.
//
// Each module keeps its own catalog files (active.<lang>.json, embedded)
// and builds its Catalog once, when it is constructed; a Catalog is never
// changed afterwards, so it is safe for concurrent use.
package i18n

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/pactboard/pact/sdk/errs"
)

// The languages the board speaks, as BCP 47 tags.
const (
	English = "en"
	Thai    = "th"
)

// Default is the language of an organization that chose none.
const Default = English

// Languages lists the languages the board speaks, English first.
func Languages() []string { return []string{English, Thai} }

// Check returns lang when the board speaks it (case and surrounding space
// aside), else invalid_request naming the accepted values.
func Check(lang string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(lang))
	if slices.Contains(Languages(), l) {
		return l, nil
	}
	return "", errs.E(errs.InvalidRequest, "language must be one of %s (got %q)",
		strings.Join(Languages(), ", "), lang)
}

// Catalog renders messages in the languages its files hold.
type Catalog struct {
	bundle *goi18n.Bundle
	ids    map[string][]string // language → message ids, for the tests
}

// NewCatalog reads every active.<lang>.json file under dir of fsys. A file
// for English is required: it is the fallback of every message.
func NewCatalog(fsys fs.FS, dir string) (*Catalog, error) {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	files, err := fs.Glob(fsys, path.Join(dir, "active.*.json"))
	if err != nil {
		return nil, err
	}
	c := &Catalog{bundle: b, ids: map[string][]string{}}
	for _, f := range files {
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		mf, err := b.ParseMessageFileBytes(raw, f)
		if err != nil {
			return nil, fmt.Errorf("i18n: catalog %s: %w", f, err)
		}
		for _, m := range mf.Messages {
			c.ids[mf.Tag.String()] = append(c.ids[mf.Tag.String()], m.ID)
		}
	}
	if len(c.ids[English]) == 0 {
		return nil, fmt.Errorf("i18n: no English catalog (active.en.json) under %s", dir)
	}
	return c, nil
}

// IDs lists the message ids of lang's catalog file, for tests that check
// every language has every message.
func (c *Catalog) IDs(lang string) []string { return slices.Sorted(slices.Values(c.ids[lang])) }

// Langs lists the languages the catalog has a file for.
func (c *Catalog) Langs() []string {
	var out []string
	for l := range c.ids {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// Text renders message id in lang with data (the message's {{.Name}}
// fields), falling back to English when lang is empty, unknown or lacks
// the message. A message missing from English too renders as its id, so a
// person still sees something; the catalog tests keep that from shipping.
func (c *Catalog) Text(lang, id string, data map[string]any) string {
	for _, l := range []string{lang, English} {
		s, err := goi18n.NewLocalizer(c.bundle, l).Localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data})
		if err == nil && s != "" {
			return s
		}
	}
	return id
}
