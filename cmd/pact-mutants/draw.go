package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// handPatchRe names a hand-written mutation, drawnPatchRe a drawn one
// (docs/proofs/README.md, "Drawn by a tool").
var (
	handPatchRe  = regexp.MustCompile(`^([A-Z]+-[0-9]{3})-([0-9]+)\.patch$`)
	drawnPatchRe = regexp.MustCompile(`^([A-Z]+-[0-9]{3})-g([0-9]+)\.patch$`)
	hunkRe       = regexp.MustCompile(`^@@ -([0-9]+)(?:,[0-9]+)? \+[0-9]+(?:,[0-9]+)? @@`)
)

// site is where a hand-written patch changes Go code: the file (from the
// repository root) and the lines of it the patch removes or replaces.
type site struct {
	File  string
	Lines []int
	// Added holds, for each line the patch replaces, the lines it puts in
	// its place: a mutant that writes one of them is the hand-written one.
	Added map[int][]string
}

// goSites reads a unified diff and returns each non-test Go file it
// changes, with the old file's line numbers of its changed lines (for a
// line only added, the line it is added before).
func goSites(patch []byte) []site {
	var out []site
	cur := -1 // index in out of the file being read; -1 for a file not mutated
	old := 0
	added, removed := false, false
	var block []int        // the lines a run of - lines removes
	var blockText []string // the + lines that follow them
	flush := func() {
		if cur >= 0 && len(block) > 0 && len(blockText) > 0 {
			for _, l := range block {
				out[cur].Added[l] = blockText
			}
		}
		block, blockText = nil, nil
	}
	sc := bufio.NewScanner(strings.NewReader(string(patch)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "):
			flush()
			cur = -1
			f := strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
				out = append(out, site{File: f, Added: map[int][]string{}})
				cur = len(out) - 1
			}
		case strings.HasPrefix(l, "--- "):
		case hunkRe.MatchString(l):
			flush()
			n, _ := strconv.Atoi(hunkRe.FindStringSubmatch(l)[1])
			old, added, removed = n, false, false
		case cur < 0:
		case strings.HasPrefix(l, "-"):
			if added {
				flush()
				added = false
			}
			out[cur].Lines = append(out[cur].Lines, old)
			block = append(block, old)
			old++
			removed = true
		case strings.HasPrefix(l, "+"):
			if !added && !removed {
				out[cur].Lines = append(out[cur].Lines, old)
			}
			blockText = append(blockText, strings.TrimSpace(l[1:]))
			added = true
		default:
			flush()
			old++
			added, removed = false, false
		}
	}
	flush()
	return out
}

// mutant is one of gremlins' mutants of a file.
type mutant struct {
	Line, Column int
	Type         string
}

func (m mutant) String() string { return fmt.Sprintf("%d:%d %s", m.Line, m.Column, m.Type) }

// dryRun lists gremlins' mutants of pkg's own files (no subpackage), by
// file name, without running a test: gremlins' --dry-run with no test
// selected reports each "not covered".
func dryRun(root, gremlins string, env []string, pkg, work string) (map[string][]mutant, error) {
	out := filepath.Join(work, strings.ReplaceAll(pkg, "/", "_")+".dry.json")
	cmd := exec.Command(gremlins, "unleash", "--dry-run", "-E", "/", "-o", out)
	cmd.Dir = filepath.Join(root, pkg)
	cmd.Env = append(env, "GOFLAGS=-count=1 -run=^$")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("gremlins --dry-run %s: %v: %s", pkg, err, tail(string(b)))
	}
	data, err := os.ReadFile(out)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]mutant{}, nil
	}
	if err != nil {
		return nil, err
	}
	var r struct {
		Files []struct {
			FileName  string `json:"file_name"`
			Mutations []struct {
				Type         string
				Line, Column int
			}
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", out, err)
	}
	byFile := map[string][]mutant{}
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			byFile[f.FileName] = append(byFile[f.FileName], mutant{m.Line, m.Column, m.Type})
		}
	}
	return byFile, nil
}

// enclosing returns the name and line range of the function declaration
// holding line in src, or ok false where none does.
func enclosing(src []byte, line int) (name string, from, to int, ok bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return "", 0, 0, false
	}
	for _, d := range f.Decls {
		fd, isFunc := d.(*ast.FuncDecl)
		if !isFunc {
			continue
		}
		from, to := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		if from <= line && line <= to {
			name = fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = "(" + recvType(fd.Recv.List[0].Type) + ")." + name
			}
			return name, from, to, true
		}
	}
	return "", 0, 0, false
}

// recvType spells a receiver's type as the source does.
func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	}
	return "?"
}

// drawOne picks, for contract id, one of gremlins' mutants of the functions
// its first hand-written patch changes in its first Go file (where they
// have none left, of the next file a hand-written patch changes), never
// one on a line a hand-written patch changes, one passed over
// (skip, "file:line:column type"), nor a - for a string + (it
// does not compile). The pick is the candidate whose sha256 of "id
// file:line:column type" is least: fixed for a tree, and chosen by no one.
// It returns the patch's text, or why none could be drawn.
func drawOne(root, id string, hand [][]byte, skip map[string]bool, of sources) (patch []byte, why string, err error) {
	var sites []site
	for _, p := range hand {
		sites = append(sites, goSites(p)...)
	}
	if len(sites) == 0 {
		return nil, "its hand-written mutations change no Go code, and gremlins mutates only Go", nil
	}
	changed := map[string][]int{}
	for _, s := range sites {
		changed[s.File] = append(changed[s.File], s.Lines...)
	}
	for _, s := range sites {
		src, err := os.ReadFile(filepath.Join(root, s.File))
		if err != nil {
			return nil, "", err
		}
		usable, scope, err := candidates(s, src, changed[s.File], skip, of)
		if err != nil {
			return nil, "", err
		}
		if len(usable) == 0 {
			continue
		}
		key := func(m mutant) string {
			sum := sha256.Sum256([]byte(id + " " + s.File + ":" + m.String()))
			return hex.EncodeToString(sum[:])
		}
		slices.SortFunc(usable, func(a, b mutant) int { return strings.Compare(key(a), key(b)) })
		pick := usable[0]
		mutated, err := mutate(src, pick.Line, pick.Column, pick.Type)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", s.File, err)
		}
		diff, err := unifiedDiff(s.File, src, mutated)
		if err != nil {
			return nil, "", err
		}
		header := fmt.Sprintf("Drawn by pact-mutants -draw (docs/proofs/README.md, \"Drawn by a tool\") for %s:\n"+
			"gremlins v0.6.0's %s mutant at %s:%d:%d, the least by sha256 of %d candidates in %s.\n\n",
			id, pick.Type, s.File, pick.Line, pick.Column, len(usable), scope)
		return append([]byte(header), diff...), "", nil
	}
	var files []string
	for f := range changed {
		files = append(files, f)
	}
	slices.Sort(files)
	if len(skip) > 0 {
		return nil, fmt.Sprintf("gremlins makes no mutant of the functions its hand-written mutations change (in %s) "+
			"but theirs and those passed over (docs/proofs/PASSED-OVER)", strings.Join(files, ", ")), nil
	}
	return nil, fmt.Sprintf("gremlins makes no mutant of the functions its hand-written mutations change (in %s) "+
		"but theirs", strings.Join(files, ", ")), nil
}

// sources says, per package, what gremlins mutates in it (by file name)
// and where its files join strings (stringConcats): each is worked out
// once per package in a run.
type sources struct {
	mutants func(pkg string) (map[string][]mutant, error)
	concats func(pkg string) (map[string]bool, error)
}

// memo caches f's answer per package.
func memo[T any](f func(pkg string) (T, error)) func(pkg string) (T, error) {
	type answer struct {
		v   T
		err error
	}
	seen := map[string]answer{}
	return func(pkg string) (T, error) {
		a, ok := seen[pkg]
		if !ok {
			a.v, a.err = f(pkg)
			seen[pkg] = a
		}
		return a.v, a.err
	}
}

// candidates are the mutants drawOne may pick at site s (src is its
// file): those of the functions holding its changed lines. The rest of the
// file is other contracts' code, so it is never drawn from. scope names the
// functions.
func candidates(s site, src []byte, changed []int, skip map[string]bool, of sources) (usable []mutant, scope string, err error) {
	pkg := filepath.Dir(s.File)
	concats, err := of.concats(pkg)
	if err != nil {
		return nil, "", err
	}
	all, err := of.mutants(pkg)
	if err != nil {
		return nil, "", err
	}
	type span struct{ from, to int }
	var funcs []span
	var names []string
	for _, l := range s.Lines {
		name, from, to, ok := enclosing(src, l)
		if ok && !slices.Contains(funcs, span{from, to}) {
			funcs, names = append(funcs, span{from, to}), append(names, name)
		}
	}
	base := filepath.Base(s.File)
	var onChanged []mutant
	for _, m := range all[base] {
		inFunc := slices.ContainsFunc(funcs, func(f span) bool { return f.from <= m.Line && m.Line <= f.to })
		switch {
		case !inFunc, skip[s.File+":"+m.String()]:
		case m.Type == "ARITHMETIC_BASE" && concats[fmt.Sprintf("%s:%d:%d", base, m.Line, m.Column)]:
		case slices.Contains(changed, m.Line):
			if !handWritten(src, m, s.Added[m.Line]) {
				onChanged = append(onChanged, m)
			}
		default:
			usable = append(usable, m)
		}
	}
	scope = s.File + ", func " + strings.Join(names, ", func ")
	if len(usable) == 0 && len(onChanged) > 0 {
		// The functions hold no other operator: another mutation of a line
		// the hand-written patch changes is still the tool's choice.
		return onChanged, scope + ", on the lines the hand-written patch changes (none else has a mutant)", nil
	}
	return usable, scope, nil
}

// handWritten reports whether mutant m of src writes one of the lines the
// hand-written patch puts in place of m's line (added): the same mutation.
func handWritten(src []byte, m mutant, added []string) bool {
	mutated, err := mutate(src, m.Line, m.Column, m.Type)
	if err != nil {
		return true // one that cannot be made is never drawn
	}
	lines := strings.Split(string(mutated), "\n")
	return m.Line <= len(lines) && slices.Contains(added, strings.TrimSpace(lines[m.Line-1]))
}

// unifiedDiff is git's diff of one file changed from before to after.
func unifiedDiff(file string, before, after []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "draw-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, before, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(b, after, 0o644); err != nil {
		return nil, err
	}
	out, err := exec.Command("diff", "-u", "--label", "a/"+file, "--label", "b/"+file, a, b).Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("diff %s: %w", file, err)
	}
	return append([]byte("diff --git a/"+file+" b/"+file+"\n"), out...), nil
}

// draw writes docs/proofs/<ID>-g1.patch for each contract of ids (every
// contract with a hand-written mutation where ids is empty) that has no
// drawn one yet, and lists in docs/proofs/UNDRAWN, with the reason, those
// for which none can be drawn.
func draw(root, gremlins string, env []string, ids []string, work string, w io.Writer) error {
	dir := filepath.Join(root, "docs", "proofs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	hand := map[string][]string{}
	drawn := map[string]bool{}
	for _, e := range entries {
		if m := handPatchRe.FindStringSubmatch(e.Name()); m != nil {
			hand[m[1]] = append(hand[m[1]], e.Name())
		}
		if m := drawnPatchRe.FindStringSubmatch(e.Name()); m != nil {
			drawn[m[1]] = true
		}
	}
	if len(ids) == 0 {
		for id := range hand {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	of := sources{
		mutants: memo(func(pkg string) (map[string][]mutant, error) { return dryRun(root, gremlins, env, pkg, work) }),
		concats: memo(func(pkg string) (map[string]bool, error) {
			files, err := goFiles(root, pkg)
			if err != nil {
				return nil, err
			}
			return stringConcats(root, pkg, files)
		}),
	}
	skip, err := readPassedOver(filepath.Join(dir, "PASSED-OVER"))
	if err != nil {
		return err
	}
	undrawn := map[string]string{}
	byHand, err := undrawnByHand(filepath.Join(dir, "UNDRAWN"))
	if err != nil {
		return err
	}
	for _, id := range ids {
		if drawn[id] || byHand[id] {
			continue
		}
		names := hand[id]
		if len(names) == 0 {
			return fmt.Errorf("%s has no hand-written mutation in docs/proofs", id)
		}
		slices.SortFunc(names, func(a, b string) int {
			na, _ := strconv.Atoi(handPatchRe.FindStringSubmatch(a)[2])
			nb, _ := strconv.Atoi(handPatchRe.FindStringSubmatch(b)[2])
			return na - nb
		})
		var texts [][]byte
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return err
			}
			texts = append(texts, b)
		}
		patch, why, err := drawOne(root, id, texts, skip[id], of)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		if why != "" {
			undrawn[id] = why
			fmt.Fprintf(w, "%s: none drawn: %s\n", id, why)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, id+"-g1.patch"), patch, 0o644); err != nil {
			return err
		}
		undrawn[id] = "" // drawn now: out of the list
		first, _, _ := strings.Cut(string(patch), "\n\n")
		fmt.Fprintf(w, "%s-g1: %s\n", id, strings.ReplaceAll(first, "\n", " "))
	}
	return writeUndrawn(filepath.Join(dir, "UNDRAWN"), undrawn)
}

// readPassedOver reads docs/proofs/PASSED-OVER: a drawn mutant -draw passes
// over a line, "ID file:line:column TYPE why": one that changes nothing the
// contract names, or one its evidence kills only by hanging until the
// proofs' bound; # starts a comment.
func readPassedOver(file string) (map[string]map[string]bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("%s:%d: expected ID file:line:column TYPE why", file, i+1)
		}
		if out[f[0]] == nil {
			out[f[0]] = map[string]bool{}
		}
		out[f[0]][f[1]+" "+f[2]] = true
	}
	return out, nil
}

// undrawnByHand are the contracts UNDRAWN lists with a reason a person
// wrote, starting "by hand:" (a contract about the code's structure, which
// no operator's mutant can break): -draw leaves them alone.
func undrawnByHand(file string) (map[string]bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if id, why, ok := strings.Cut(line, "\t"); ok && strings.HasPrefix(why, "by hand:") {
			out[id] = true
		}
	}
	return out, nil
}

// writeUndrawn writes the contracts of undrawn into the list with their
// reasons (one with none was drawn, and leaves the list), keeping its
// other lines.
func writeUndrawn(file string, undrawn map[string]string) error {
	if len(undrawn) == 0 {
		return nil
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(old), "\n"), "\n")
	if len(old) == 0 {
		lines = []string{
			"# Current contracts with a hand-written mutation but none drawn by a tool (docs/proofs/README.md,",
			"# \"Drawn by a tool\"): the contract's id, a tab, then why. pact-mutants -draw writes the lines it",
			"# could not draw; a reason starting \"by hand:\" is a person's, and -draw leaves that contract alone.",
			"# docs/proofs_test.go checks the list against the ledger and the patches.",
		}
	}
	for id, why := range undrawn {
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, id+" ") || strings.HasPrefix(l, id+"\t") })
		if why != "" {
			lines = append(lines, id+"\t"+why)
		}
	}
	head, body := lines[:0:0], []string{}
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			head = append(head, l)
		} else if l != "" {
			body = append(body, l)
		}
	}
	slices.Sort(body)
	return os.WriteFile(file, []byte(strings.Join(append(head, body...), "\n")+"\n"), 0o644)
}
