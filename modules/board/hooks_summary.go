package board

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// maxSummaryText clips each string a tool-use summary keeps.
const maxSummaryText = 2000

// maxSummaryEdits is how many of a MultiEdit's edits a summary keeps.
const maxSummaryEdits = 20

// summarizeToolUse is what the log keeps of a PostToolUse hook
// (docs/specs/behavior.md §9.4): the tool, the session and the working
// directory, and for the tools that change things what they were asked to
// do; any other tool only by the names of its inputs. The tool's output
// is never kept. The log redacts the summary as it does every payload.
func summarizeToolUse(hook map[string]any) map[string]any {
	out := map[string]any{"tool": hook["tool_name"], "session_id": hook["session_id"], "cwd": hook["cwd"]}
	in, _ := hook["tool_input"].(map[string]any)
	keep := func(names ...string) {
		for _, n := range names {
			if v, ok := in[n]; ok {
				out[n] = clip(v)
			}
		}
	}
	switch hook["tool_name"] {
	case "Bash":
		keep("command", "description")
	case "Edit":
		keep("file_path", "old_string", "new_string")
	case "MultiEdit":
		keep("file_path")
		edits, _ := in["edits"].([]any)
		kept := []any{}
		for _, e := range edits[:min(len(edits), maxSummaryEdits)] {
			if e, ok := e.(map[string]any); ok {
				kept = append(kept, map[string]any{"old_string": clip(e["old_string"]), "new_string": clip(e["new_string"])})
			}
		}
		out["edits"] = kept
	case "Write":
		keep("file_path", "content")
	case "NotebookEdit":
		keep("file_path", "new_source")
		if _, ok := out["file_path"]; !ok {
			if p, ok := in["notebook_path"]; ok {
				out["file_path"] = clip(p)
			}
		}
	default:
		names := make([]string, 0, len(in))
		for n := range in {
			names = append(names, n)
		}
		slices.Sort(names)
		out["input_keys"] = names
	}
	return out
}

// clip shortens a string past maxSummaryText characters, saying how much
// was left out; other values pass as they are.
func clip(v any) any {
	s, ok := v.(string)
	if !ok || utf8.RuneCountInString(s) <= maxSummaryText {
		return v
	}
	r := []rune(s)
	return fmt.Sprintf("%s… [%d more characters]", string(r[:maxSummaryText]), len(r)-maxSummaryText)
}
