package browsertest

import (
	"path/filepath"
	"strings"
)

// Page is one browser tab in a context of its own. Every method fails the
// test, with the driver's message, when its step fails; steps that wait
// (Click, Fill, ExpectText) wait up to Timeout.
type Page struct {
	b    *Browser
	name string
}

func (p *Page) do(op string, args map[string]any, out any) {
	p.b.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["page"] = p.name
	p.b.do(op, args, out)
}

// Goto loads url, waits for its load event and returns the HTTP status
// (0 for a URL that has none, such as data:).
func (p *Page) Goto(url string) int {
	p.b.t.Helper()
	var res struct{ Status int }
	p.do("goto", map[string]any{"url": url}, &res)
	return res.Status
}

// Resize sets the viewport to width×height CSS pixels.
func (p *Page) Resize(width, height int) {
	p.b.t.Helper()
	p.do("viewport", map[string]any{"width": width, "height": height}, nil)
}

// Click clicks the element of ARIA role (button, link, checkbox…) whose
// accessible name is exactly name: the way a person finds it, so a journey
// also checks that it has one.
func (p *Page) Click(role, name string) {
	p.b.t.Helper()
	p.do("click", map[string]any{"role": role, "name": name}, nil)
}

// ClickIn clicks, inside the one element matching the CSS selector within
// that shows text, the element of ARIA role whose accessible name is
// exactly name: for a page that shows the same button in several places
// (a Revoke on each mandate, a dialog repeating its opener's label).
func (p *Page) ClickIn(within, text, role, name string) {
	p.b.t.Helper()
	p.do("clickIn", map[string]any{"within": within, "text": text, "role": role, "name": name}, nil)
}

// Expand opens the <details> whose <summary> reads exactly summary, the way
// a person clicks it (a summary has no ARIA role for Click to find it by);
// one already open stays open.
func (p *Page) Expand(summary string) {
	p.b.t.Helper()
	p.do("expand", map[string]any{"summary": summary}, nil)
}

// Fill types value into the field whose label is exactly label.
func (p *Page) Fill(label, value string) {
	p.b.t.Helper()
	p.do("fill", map[string]any{"label": label, "value": value}, nil)
}

// Select chooses, in the first select labelled label exactly, the option
// whose value or text is value.
func (p *Page) Select(label, value string) {
	p.b.t.Helper()
	p.do("select", map[string]any{"label": label, "value": value}, nil)
}

// Value returns the value of the field whose label is exactly label: what
// a person sees typed in it.
func (p *Page) Value(label string) string {
	p.b.t.Helper()
	var s string
	p.do("value", map[string]any{"label": label}, &s)
	return s
}

// Values returns the value of every input, textarea and select of the
// page, shown or not (a closed <details> keeps its fields), in document
// order: what the page holds beyond its text and its HTML.
func (p *Page) Values() []string {
	p.b.t.Helper()
	var s []string
	p.do("values", nil, &s)
	return s
}

// ExpectText waits until text is visible on the page.
func (p *Page) ExpectText(text string) {
	p.b.t.Helper()
	p.do("expectText", map[string]any{"text": text}, nil)
}

// Text returns the rendered text of the first element matching the CSS
// selector.
func (p *Page) Text(selector string) string {
	p.b.t.Helper()
	var s string
	p.do("text", map[string]any{"selector": selector}, &s)
	return s
}

// HTML returns the document as it is now, serialized (attributes
// included, fields' typed values not: see Values).
func (p *Page) HTML() string {
	p.b.t.Helper()
	var s string
	p.do("html", nil, &s)
	return s
}

// URL returns the page's current URL (after any redirects).
func (p *Page) URL() string {
	p.b.t.Helper()
	var s string
	p.do("url", nil, &s)
	return s
}

// Screenshot writes the viewport as a PNG to path (absolute, or relative
// to the test's working directory).
func (p *Page) Screenshot(path string) {
	p.b.t.Helper()
	p.do("screenshot", map[string]any{"path": abs(path)}, nil)
}

// Violation is one axe-core rule the page breaks.
type Violation struct {
	ID      string   `json:"id"`     // the axe rule, e.g. image-alt
	Impact  string   `json:"impact"` // minor, moderate, serious or critical
	Help    string   `json:"help"`
	HelpURL string   `json:"helpUrl"`
	Targets []string `json:"targets"` // CSS selectors of the offending elements
}

func (v Violation) String() string {
	return v.Impact + " " + v.ID + ": " + v.Help + " (" + strings.Join(v.Targets, ", ") + ")"
}

// Axe runs axe-core on the page as it is now and returns every violation.
func (p *Page) Axe() []Violation {
	p.b.t.Helper()
	var v []Violation
	p.do("axe", nil, &v)
	return v
}

// Serious returns the violations of serious or critical impact: the ones
// issue #15 allows none of.
func Serious(violations []Violation) []Violation {
	var out []Violation
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			out = append(out, v)
		}
	}
	return out
}

// Cookie is one cookie of the page's context.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"` // Unix seconds; -1 for a session cookie
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"`
}

// Cookies returns the cookies of the page's context, for every site.
func (p *Page) Cookies() []Cookie {
	p.b.t.Helper()
	var c []Cookie
	p.do("cookies", nil, &c)
	return c
}

// LocalStorage returns the localStorage of the page's current origin.
func (p *Page) LocalStorage() map[string]string {
	p.b.t.Helper()
	var m map[string]string
	p.do("storage", nil, &m)
	return m
}

// Close closes the page and its context; pages still open close with the
// browser.
func (p *Page) Close() {
	p.b.t.Helper()
	p.do("closePage", nil, nil)
}

// abs makes path absolute: the driver runs in its install directory, not
// the test's.
func abs(path string) string {
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return path
}

// WaitURL waits until the page's URL starts with prefix and returns it.
func (p *Page) WaitURL(prefix string) string {
	p.b.t.Helper()
	var s string
	p.do("waitURL", map[string]any{"prefix": prefix}, &s)
	return s
}

// Texts returns the rendered text of every visible element of ARIA role
// (button, link, textbox…), in document order: what a person could use.
func (p *Page) Texts(role string) []string {
	p.b.t.Helper()
	var s []string
	p.do("texts", map[string]any{"role": role}, &s)
	return s
}

// Attrs returns the attribute attr of every visible element matching the
// CSS selector, in document order ("" where it has none).
func (p *Page) Attrs(selector, attr string) []string {
	p.b.t.Helper()
	var s []string
	p.do("attrs", map[string]any{"selector": selector, "attr": attr}, &s)
	return s
}

// Request is one request a page made.
type Request struct {
	Method     string `json:"method"`
	URL        string `json:"url"`
	Navigation bool   `json:"navigation"` // a document load, not a fetch or asset
}

// Requests returns every request the page has made since it opened, in
// order: documents, assets, fetches and event streams.
func (p *Page) Requests() []Request {
	p.b.t.Helper()
	var r []Request
	p.do("requests", nil, &r)
	return r
}

// Press presses key on the keyboard ("Tab", "Shift+Tab", "Enter",
// "Escape", …), as a person who uses no mouse does.
func (p *Page) Press(key string) {
	p.b.t.Helper()
	p.do("press", map[string]any{"key": key}, nil)
}

// Focus is the element that has the keyboard's focus: its tag, its
// accessible text (aria-label, its label, its text or its value) and
// whether it is inside an open dialog.
type Focus struct {
	Tag      string `json:"tag"`
	Text     string `json:"text"`
	InDialog bool   `json:"inDialog"`
}

// Focused returns the element that has the keyboard's focus.
func (p *Page) Focused() Focus {
	p.b.t.Helper()
	var f Focus
	p.do("focused", nil, &f)
	return f
}

// TabTo presses Tab until the focused element's text is text, and fails
// the test after max presses: the element is reachable by keyboard.
func (p *Page) TabTo(text string, max int) {
	p.b.t.Helper()
	var seen []string
	for range max {
		p.Press("Tab")
		f := p.Focused()
		if f.Text == text {
			return
		}
		seen = append(seen, f.Tag+" "+f.Text)
	}
	p.b.t.Fatalf("%q is not reachable with Tab in %d presses; focus went through %q", text, max, seen)
}
