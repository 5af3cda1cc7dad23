package board

import (
	"encoding/json"
	"regexp"
	"strings"
)

// handoffTemplate is what a refusal shows an agent that closed without one.
const handoffTemplate = "## Handoff\n- Done: …\n- Repo / branch / PR / commit: …\n- Checks: …\n- Left / next: …\n" +
	"- Needs a human: …\n- Links: …"

// handoffHeading is a line that is a "Handoff" heading. Its white space is
// spaces and tabs only, so no match spans lines: with \s, "#" on one line
// and "Handoff" starting the next counted as a heading (found by
// FuzzHandoff; the original's pattern had the same flaw).
var handoffHeading = regexp.MustCompile(`(?im)^[ \t]{0,3}#{1,6}[ \t]*handoff\b`)

// hasHandoff reports whether a closing result carries a handoff: a markdown
// heading "Handoff" in text, or an object with a non-empty "handoff" key
// (any case) (docs/specs/behavior.md §7.4).
func hasHandoff(result json.RawMessage) bool {
	var s string
	if json.Unmarshal(result, &s) == nil {
		return handoffHeading.MatchString(s)
	}
	var obj map[string]any
	if json.Unmarshal(result, &obj) != nil {
		return false
	}
	for k, v := range obj {
		if strings.EqualFold(k, "handoff") && truthy(v) {
			return true
		}
	}
	return false
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return strings.TrimSpace(x) != ""
	case bool:
		return x
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

var headingRe = regexp.MustCompile(`^\s{0,3}(#{1,6})\s`)

// handoffLine is handoffHeading on one line, with its level: the same
// headings the check sees ("#handoff" included), so that what it finds is
// what gets removed (FuzzHandoff).
var handoffLine = regexp.MustCompile(`(?i)^[ \t]{0,3}(#{1,6})[ \t]*handoff\b`)

// withoutHandoff removes a text result's Handoff section: from its heading
// to the next heading of the same or a higher level, or the end.
func withoutHandoff(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	skipping, level := false, 0
	for _, l := range lines {
		h := handoffLine.FindStringSubmatch(l)
		m := headingRe.FindStringSubmatch(l)
		if m == nil && h != nil {
			m = h
		}
		if m != nil {
			if skipping && len(m[1]) <= level {
				skipping = false
			}
			if !skipping && h != nil {
				skipping, level = true, len(h[1])
				continue
			}
		}
		if !skipping {
			out = append(out, l)
		}
	}
	return trimBlankLines(strings.Join(out, "\n"))
}

// trimBlankLines drops blank lines at both ends and trailing white space,
// but keeps the first line's indentation: trimming it could turn an
// indented line into a heading (FuzzHandoff found "    #handoff").
func trimBlankLines(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			return s
		}
		s = s[i+1:]
	}
}

// briefDetail is what a brief notification carries (docs/specs/behavior.md §8.5): a
// structured report as JSON when the result holds one, else the result's
// text without its Handoff section. outbox.Enqueue redacts and cuts it.
func briefDetail(result json.RawMessage) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) == nil {
		if rep, ok := obj["report"]; ok {
			if cleaned := cleanReport(rep); cleaned != "" {
				return cleaned
			}
		}
		if text, ok := obj["text"]; ok {
			return withoutHandoff(resultText(text))
		}
	}
	return withoutHandoff(resultText(result))
}

// handoffOf is a closing result's Handoff, as A2A hands it back as an
// artifact (docs/a2a.md): a text result's Handoff section, heading
// included (what withoutHandoff removes), or an object's "handoff" value
// (any case of the key). ok is false when the result carries none.
func handoffOf(result json.RawMessage) (text string, value json.RawMessage, ok bool) {
	var s string
	if json.Unmarshal(result, &s) == nil {
		section := handoffSection(s)
		return section, nil, section != ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil {
		return "", nil, false
	}
	for k, v := range obj {
		var decoded any
		if strings.EqualFold(k, "handoff") && json.Unmarshal(v, &decoded) == nil && truthy(decoded) {
			if str, isText := decoded.(string); isText {
				return str, nil, true
			}
			return "", v, true
		}
	}
	return "", nil, false
}

// handoffSection is s's Handoff section: from its heading to the next
// heading of the same or a higher level, or the end; "" when s has none.
func handoffSection(s string) string {
	var out []string
	inside, level := false, 0
	for _, l := range strings.Split(s, "\n") {
		h := handoffLine.FindStringSubmatch(l)
		m := headingRe.FindStringSubmatch(l)
		if m == nil && h != nil {
			m = h
		}
		if inside && m != nil && len(m[1]) <= level {
			break
		}
		if !inside && h != nil {
			inside, level = true, len(h[1])
		}
		if inside {
			out = append(out, l)
		}
	}
	return trimBlankLines(strings.Join(out, "\n"))
}
