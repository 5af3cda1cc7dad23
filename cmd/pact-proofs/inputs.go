package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A kept kill (docs/proofs/README.md, "Kills kept"): a patch killed in an
// earlier run is not run again while every input its verdict can depend
// on is byte for byte what it was then. The inputs are derived, not
// listed by hand:
//
//   - the patch, its contract's Evidence line, the Go version and
//     PostgreSQL's major version, the files the patch touches, and what
//     every evidence run reads whatever it tests (the go.mod and go.sum
//     files, .ci/, migrations/, plugins/ and sdk/, which tests build and
//     load as subprocesses, this command, and the Tenuo vectors beside
//     the repository);
//   - every file under the directory of each package the evidence's test
//     binaries link (go list -deps -test), with its embedded files and
//     testdata; of those packages' _test.go files, only the evidence
//     packages' (a package's tests are linked into its own binary alone);
//   - when that code has the literal "build" (it runs go build), the
//     packages of each command it names as go build takes it
//     ("./cmd/pact-verify"), and theirs in turn;
//   - every .go file when that code has the literal ".go" (it reads Go
//     source as data), every file when it has "ls-files" (it lists the
//     tracked files);
//   - every other file one of that code's string literals ends, less its
//     leading "./" and "../" ("errors.md", "../../docs/openapi.json",
//     ".patch", "-role.md"), or names by its very name ("../Makefile").
//
// What this misses is a file named only at run time by a name built from
// pieces none of which ends it, outside the packages linked: one kept kill
// in ten (-audit) runs anyway, and the full run
// (make proofs FRESH=1) keeps nothing.

// globalPrefixes are read by evidence in any package (see above): the
// Makefile is not, its readers name it ("../Makefile").
var globalPrefixes = []string{".ci/", "migrations/", "plugins/", "sdk/", "cmd/pact-proofs/"}

// notInputs are written by the runs themselves: a run that rewrote KILLERS
// would otherwise change the key of every patch whose evidence is in docs/.
var notInputs = []string{"docs/proofs/KILLERS"}

// goPkg is one package of the repository as the keys see it.
type goPkg struct {
	Dir      string   // relative to the root, slash-separated
	Main     bool     // a command
	Deps     []string // the directories of the repository's packages it links
	TestDeps []string // the same for its test binary (nil without tests)
	Literals []string // the string literals of its .go files but its tests
	TestLits []string // those of its _test.go files
}

// tree is the repository snapshot the keys are computed from.
type tree struct {
	root   string
	files  []string          // as sourceFiles lists them
	sums   map[string]string // file → sha256
	pkgs   map[string]*goPkg // by Dir
	common string            // the hash of the global inputs, part of every key
	goVers string
	cached map[string][]string // inputs by evidence directories
}

// loadTree hashes every file of root, and lists the packages of each Go
// module in it with what they link.
func loadTree(root string, files []string, vectors string) (*tree, error) {
	t := &tree{root: root, files: slices.Sorted(slices.Values(files)), sums: map[string]string{}, pkgs: map[string]*goPkg{}, cached: map[string][]string{}}
	for _, f := range t.files {
		sum, err := fileSum(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		t.sums[f] = sum
	}
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOVERSION: %w", err)
	}
	t.goVers = strings.TrimSpace(string(out))
	var modules []string
	for _, f := range t.files {
		if path.Base(f) == "go.mod" {
			modules = append(modules, path.Dir(f))
		}
	}
	for _, m := range modules {
		if err := t.listModule(m); err != nil {
			return nil, err
		}
	}
	g := sha256.New()
	fmt.Fprintf(g, "pact-proofs keys v1\n%s\npostgres %s\n", t.goVers, postgresMajor())
	for _, f := range t.files {
		if t.global(f) {
			fmt.Fprintf(g, "%s %s\n", f, t.sums[f])
		}
	}
	// The vectors are read from beside the repository (PACT_TENUO_VECTORS):
	// their presence and their bytes.
	_ = filepath.WalkDir(vectors, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if sum, err := fileSum(p); err == nil {
			rel, _ := filepath.Rel(vectors, p)
			fmt.Fprintf(g, "vectors/%s %s\n", filepath.ToSlash(rel), sum)
		}
		return nil
	})
	t.common = hex.EncodeToString(g.Sum(nil))
	return t, nil
}

// postgresMajor is the major version of the PostgreSQL the tests start
// (found as core/pgcluster finds it: PG_BIN, PATH, then the Debian
// layout), or "none". Only the major: a minor release fixes bugs, and
// keys that changed with every one would keep nothing across machines.
func postgresMajor() string {
	initdb := "initdb"
	if dir := os.Getenv("PG_BIN"); dir != "" {
		initdb = filepath.Join(dir, "initdb")
	} else if _, err := exec.LookPath("initdb"); err != nil {
		if found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(found) > 0 {
			initdb = found[len(found)-1]
		}
	}
	out, err := exec.Command(initdb, "--version").Output()
	if err != nil {
		return "none"
	}
	// "initdb (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
	_, v, _ := strings.Cut(string(out), ") ")
	major, _, _ := strings.Cut(v, ".")
	return strings.TrimSpace(major)
}

func (t *tree) global(f string) bool {
	if slices.Contains(notInputs, f) {
		return false
	}
	switch path.Base(f) {
	case "go.mod", "go.sum":
		return true
	}
	for _, p := range globalPrefixes {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}

// listModule adds the packages of the module at dir, with their deps and
// their test binaries' deps, from go list.
func (t *tree) listModule(dir string) error {
	cmd := exec.Command("go", "list", "-e", "-deps", "-test", "-json=ImportPath,Dir,Name,Deps,ForTest", "./...")
	cmd.Dir = filepath.Join(t.root, dir)
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list in %s: %w", dir, err)
	}
	type listed struct {
		ImportPath, Dir, Name, ForTest string
		Deps                           []string
	}
	var all []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("go list in %s: %w", dir, err)
		}
		all = append(all, p)
	}
	dirOf := map[string]string{} // import path without its [x.test] → the repository directory
	for _, p := range all {
		if rel, ok := t.rel(p.Dir); ok {
			dirOf[bare(p.ImportPath)] = rel
		}
	}
	repoDirs := func(deps []string, self string) []string {
		set := []string{self}
		for _, d := range deps {
			if rel, ok := dirOf[bare(d)]; ok && !slices.Contains(set, rel) {
				set = append(set, rel)
			}
		}
		slices.Sort(set)
		return set
	}
	for _, p := range all {
		rel, ok := t.rel(p.Dir)
		if !ok || p.ForTest != "" {
			continue
		}
		pkg := t.pkg(rel)
		if strings.HasSuffix(p.ImportPath, ".test") {
			pkg.TestDeps = repoDirs(p.Deps, rel)
			continue
		}
		pkg.Main = pkg.Main || p.Name == "main"
		pkg.Deps = repoDirs(p.Deps, rel)
	}
	return nil
}

func (t *tree) pkg(dir string) *goPkg {
	p := t.pkgs[dir]
	if p == nil {
		p = &goPkg{Dir: dir, Literals: t.literals(dir, false), TestLits: t.literals(dir, true)}
		t.pkgs[dir] = p
	}
	return p
}

// rel is dir relative to the root, when it is inside it.
func (t *tree) rel(dir string) (string, bool) {
	r, err := filepath.Rel(t.root, dir)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// bare drops go list's " [x.test]" from an import path.
func bare(importPath string) string {
	p, _, _ := strings.Cut(importPath, " ")
	return p
}

// literals are the string literals of the .go files in dir itself: its
// tests' or the others'.
func (t *tree) literals(dir string, tests bool) []string {
	var out []string
	for _, f := range t.files {
		if path.Dir(f) != dir || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") != tests {
			continue
		}
		src, err := os.ReadFile(filepath.Join(t.root, f))
		if err != nil {
			continue
		}
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile(f, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING {
				continue
			}
			if v, err := strconv.Unquote(lit); err == nil && v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// closure is the directories of the packages a job's evidence can run:
// what its test binaries link, and the commands their code builds by name.
func (t *tree) closure(evidenceDirs []string) []string {
	var set []string
	add := func(dirs []string) {
		for _, d := range dirs {
			if !slices.Contains(set, d) {
				set = append(set, d)
			}
		}
	}
	for _, d := range evidenceDirs {
		add([]string{d})
		if p := t.pkgs[d]; p != nil {
			add(p.TestDeps)
		}
	}
	for grew := true; grew; {
		grew = false
		lits := t.literalsOf(set, evidenceDirs)
		if !slices.Contains(lits, "build") {
			break
		}
		for _, p := range t.sortedPkgs() {
			if !p.Main || slices.Contains(set, p.Dir) || !namesCommand(lits, p.Dir) {
				continue
			}
			add(p.Deps)
			grew = true
		}
	}
	slices.Sort(set)
	return set
}

// namesCommand reports whether a literal names the command at dir as go
// build takes it: "./cmd/pact-verify", or a path ending in its directory.
func namesCommand(lits []string, dir string) bool {
	base := path.Base(dir)
	for _, l := range lits {
		if strings.HasPrefix(l, "./") && strings.HasSuffix(l, "/"+base) {
			return true
		}
	}
	return false
}

func (t *tree) sortedPkgs() []*goPkg {
	var out []*goPkg
	for _, d := range slices.Sorted(maps.Keys(t.pkgs)) {
		out = append(out, t.pkgs[d])
	}
	return out
}

// literalsOf are the literals of the code that runs in a test binary of
// the evidence packages: dirs' packages, and the evidence's tests (a
// package's tests are not linked into another's test binary).
func (t *tree) literalsOf(dirs, evidenceDirs []string) []string {
	var out []string
	for _, d := range dirs {
		if p := t.pkgs[d]; p != nil {
			out = append(out, p.Literals...)
		}
	}
	for _, d := range evidenceDirs {
		if p := t.pkgs[d]; p != nil {
			out = append(out, p.TestLits...)
		}
	}
	return out
}

// inputs lists the files a job's verdict can depend on besides the global
// ones, sorted (see the comment at the top).
func (t *tree) inputs(evidenceDirs []string) []string {
	id := strings.Join(evidenceDirs, "\x00")
	if got, ok := t.cached[id]; ok {
		return got
	}
	dirs := t.closure(evidenceDirs)
	lits := t.literalsOf(dirs, evidenceDirs)
	readsGo, readsAll := slices.Contains(lits, ".go"), slices.Contains(lits, "ls-files")
	ends, names := map[string]bool{}, map[string]bool{}
	for _, l := range lits {
		l = relative(l)
		switch {
		case len(l) < 3 || strings.ContainsAny(l, " \n\t"):
		case strings.ContainsAny(l, "./"):
			ends[l] = true // a path or a name with its extension: any file it ends
		default:
			names[l] = true // a bare word: a file of that very name ("Makefile")
		}
	}
	var out []string
	for _, f := range t.files {
		if t.global(f) || slices.Contains(notInputs, f) {
			continue
		}
		in := readsAll || under(f, dirs) && (!strings.HasSuffix(f, "_test.go") || under(f, evidenceDirs) || !inPackage(f, dirs))
		if !in && strings.HasSuffix(f, ".go") {
			in = readsGo
		} else if !in {
			in = endsWithAny(f, ends) || names[path.Base(f)]
		}
		if in {
			out = append(out, f)
		}
	}
	t.cached[id] = out
	return out
}

// inPackage reports whether f is directly in one of dirs: a package's
// _test.go file, which is linked only into its own test binary.
func inPackage(f string, dirs []string) bool {
	return slices.Contains(dirs, path.Dir(f))
}

// under reports whether f is in one of dirs or below it.
func under(f string, dirs []string) bool {
	for _, d := range dirs {
		if d == "." || strings.HasPrefix(f, d+"/") {
			return true
		}
	}
	return false
}

// relative drops the leading "./" and "../" of a literal path: a test
// reads "../../docs/openapi.json", the tree lists "docs/openapi.json".
func relative(l string) string {
	for {
		switch {
		case strings.HasPrefix(l, "../"):
			l = l[3:]
		case strings.HasPrefix(l, "./"):
			l = l[2:]
		default:
			return l
		}
	}
}

// endsWithAny reports whether one of ends is a suffix of f.
func endsWithAny(f string, ends map[string]bool) bool {
	for i := range len(f) {
		if ends[f[i:]] {
			return true
		}
	}
	return false
}

// key is what a job's verdict depends on, as one hash: equal keys, equal
// verdicts (short of a file named only at run time).
func (t *tree) key(j job, patch []byte, patched []string) string {
	dirs := evidenceDirs(j)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", t.common)
	for _, e := range j.Evidence {
		fmt.Fprintf(h, "evidence %s %s\n", e.Path, strings.Join(e.Funcs, " "))
	}
	fmt.Fprintf(h, "patch %x\n", sha256.Sum256(patch))
	in := t.inputs(dirs)
	for _, f := range in {
		fmt.Fprintf(h, "%s %s\n", f, t.sums[f])
	}
	for _, f := range patched {
		if !slices.Contains(in, f) && !t.global(f) {
			fmt.Fprintf(h, "patched %s %s\n", f, t.sums[f])
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// evidenceDirs are the directories of a job's evidence packages, sorted.
func evidenceDirs(j job) []string {
	var dirs []string
	for _, e := range j.Evidence {
		if d := path.Dir(e.Path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	return dirs
}

// patchedPaths are the paths a unified diff names ("+++ b/x", "--- a/x").
func patchedPaths(patch []byte) []string {
	var out []string
	for _, line := range strings.Split(string(patch), "\n") {
		for _, pre := range []string{"+++ b/", "--- a/"} {
			if p, ok := strings.CutPrefix(line, pre); ok && !slices.Contains(out, strings.TrimSpace(p)) {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}

func fileSum(p string) (string, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "symlink %s", target)
	} else {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		// Only the bit git keeps: a checkout's other bits follow the umask.
		fmt.Fprintf(h, "exec %t", st.Mode().Perm()&0o111 != 0)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
