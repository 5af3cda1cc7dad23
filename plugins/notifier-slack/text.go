package main

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// Slack's limits (docs/specs/behavior.md §8.7); a card over any of them is refused with
// invalid_blocks, so every text is cut to fit before it is sent.
const (
	maxBlocks      = 50
	maxSectionText = 2900 // Slack allows 3000; the margin absorbs a cut entity
	maxHeader      = 150
	maxFallback    = 3000 // the notification's `text`: what a phone shows
	maxURL         = 2000 // longer links are not linked at all (button URLs stop at 3000)
	maxContext     = 2000
	maxTitle       = 300  // the board sends ≤200; escaped, ≤1500
	maxLinkedURL   = 1200 // a title linked to a longer URL is shown unlinked
)

// escape makes s safe inside mrkdwn: Slack reads <…> as links and mentions
// (<!channel> would ping everyone) and & as the start of an entity.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// clip cuts plain text to at most n runes, ending with "…" when it cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:n-1]), isSpace) + "…"
}

// clipMrkdwn cuts already-escaped mrkdwn to n runes without leaving half an
// entity ("&am…") behind: escape turned every raw & into an entity, so a
// trailing & with no ; after it is a cut one.
func clipMrkdwn(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := string([]rune(s)[:n-1])
	if amp := strings.LastIndexByte(cut, '&'); amp >= 0 && !strings.Contains(cut[amp:], ";") {
		cut = cut[:amp]
	}
	return strings.TrimRightFunc(cut, isSpace) + "…"
}

func isSpace(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '\r' }

// firstLine returns the first non-blank line of s, trimmed: a card shows one
// line of detail, never a body.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// safeURL returns u when it is an absolute http(s) URL short enough for a
// link and a button, else "". Links come from the board, but a card must not
// carry a javascript: or relative URL whatever the board was configured with.
func safeURL(u string) string {
	if u == "" || len(u) > maxURL {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	return p.String()
}

// mrkdwnLink renders <url|text>. Inside the angle brackets a | or > would end
// the URL early, so they are percent-encoded; & is written as an entity, as
// Slack itself writes links.
func mrkdwnLink(u, text string) string {
	u = strings.NewReplacer("&", "&amp;", "<", "%3C", ">", "%3E", "|", "%7C").Replace(u)
	return "<" + u + "|" + text + ">"
}
