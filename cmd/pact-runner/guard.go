package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strings"
)

// The push guard (docs/runner.md, "The push guard"): a Claude Code
// PreToolUse hook the runner installs for its sessions (session.go), run
// as `pact-runner guard --protected <patterns> [--allow-force]` with the
// hook's JSON on stdin. It refuses a Bash command that pushes to a
// protected branch (named, deleted, or the current branch when the push
// names none), pushes every branch (--all, --mirror), or force-pushes
// (--force, -f, --force-with-lease, a +refspec) unless --allow-force.
// Exit 2 blocks the tool call and shows Claude the reason (stderr); exit 0
// lets it run. It judges the command's words, not what a shell would
// expand, so an unusual spelling is let through: it guards against
// mistakes, and the repository's own branch protection stays the rule.

// runGuard is the guard subcommand.
func runGuard(args []string, stdin io.Reader, stderr io.Writer) int {
	fs := flag.NewFlagSet("pact-runner guard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	protected := fs.String("protected", "main,master", "branch patterns pushes may not reach, comma-separated (path.Match, e.g. release/*)")
	allowForce := fs.Bool("allow-force", false, "let force pushes to other branches pass")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var in struct {
		ToolName  string `json:"tool_name"`
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
		Cwd string `json:"cwd"`
	}
	if err := json.NewDecoder(stdin).Decode(&in); err != nil {
		fmt.Fprintf(stderr, "pact-runner guard: cannot read the hook's input: %v\n", err)
		return 2 // unsure: refuse
	}
	if in.ToolName != "Bash" {
		return 0
	}
	g := guard{protected: splitList(*protected), allowForce: *allowForce, current: func() string { return currentBranch(in.Cwd) }}
	if why := g.refuse(in.ToolInput.Command); why != "" {
		fmt.Fprintf(stderr, "pact-runner guard refused this command: %s. Push a branch of your own and open a pull request; "+
			"protected: %s.\n", why, strings.Join(g.protected, ", "))
		return 2
	}
	return 0
}

// guard is the push guard's rules.
type guard struct {
	protected  []string
	allowForce bool
	current    func() string // the branch checked out, "" unknown
}

// refuse returns why command may not run, or "".
func (g guard) refuse(command string) string {
	for _, words := range simpleCommands(command) {
		args, ok := gitPush(words)
		if !ok {
			continue
		}
		if why := g.push(args); why != "" {
			return why
		}
	}
	return ""
}

// push judges the arguments after `git push`.
func (g guard) push(args []string) string {
	var positional []string
	for _, a := range args {
		switch {
		case a == "--all" || a == "--mirror" || a == "--branches":
			return "it pushes every branch (" + a + ")"
		case a == "-f" || a == "--force" || strings.HasPrefix(a, "--force-with-lease") || a == "--force-if-includes" ||
			(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f")):
			if !g.allowForce {
				return "it force-pushes (" + a + ")"
			}
		case strings.HasPrefix(a, "-"):
		default:
			positional = append(positional, a)
		}
	}
	refspecs := positional
	if len(refspecs) > 0 {
		refspecs = refspecs[1:] // the remote
	}
	if len(refspecs) == 0 || (len(refspecs) == 1 && refspecs[0] == "HEAD") {
		if b := g.current(); g.isProtected(b) {
			return "it pushes the current branch, " + b
		}
		return ""
	}
	for _, r := range refspecs {
		if strings.HasPrefix(r, "+") && !g.allowForce {
			return "it force-pushes (" + r + ")"
		}
		dst := strings.TrimPrefix(r, "+")
		if i := strings.LastIndex(dst, ":"); i >= 0 {
			dst = dst[i+1:]
		}
		if dst == "HEAD" {
			dst = g.current()
		}
		dst = strings.TrimPrefix(dst, "refs/heads/")
		if g.isProtected(dst) {
			return "it pushes to the protected branch " + dst
		}
	}
	return ""
}

func (g guard) isProtected(branch string) bool {
	for _, p := range g.protected {
		if ok, _ := path.Match(p, branch); ok && branch != "" {
			return true
		}
	}
	return false
}

// simpleCommands splits a command line at ;, &, | and newlines into the
// words of each simple command, quotes removed.
func simpleCommands(line string) [][]string {
	var out [][]string
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	flushWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	flush := func() {
		flushWord()
		if len(words) > 0 {
			out = append(out, words)
			words = nil
		}
	}
	for _, c := range line {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				word.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')':
			flush()
		case c == ' ' || c == '\t':
			flushWord()
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	flush()
	return out
}

// gitPush returns the arguments after push when words run `git push`
// (after variable assignments and git's own options).
func gitPush(words []string) ([]string, bool) {
	i := 0
	for i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-") {
		i++
	}
	if i < len(words) && (words[i] == "command" || words[i] == "exec") {
		i++
	}
	if i >= len(words) || path.Base(words[i]) != "git" {
		return nil, false
	}
	for i++; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-C" || w == "-c" || w == "--git-dir" || w == "--work-tree" || w == "--namespace":
			i++ // its value
		case strings.HasPrefix(w, "-"):
		case w == "push":
			return words[i+1:], true
		default:
			return nil, false
		}
	}
	return nil, false
}

// currentBranch is the branch checked out in dir, or "".
func currentBranch(dir string) string {
	cmd := exec.Command("git", "rev-parse", "--abbrev-ref", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
