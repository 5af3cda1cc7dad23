package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/npmtest"
)

func TestAssets(t *testing.T) {
	page, err := fs.ReadFile(Assets(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`src="/console/assets/app.js"`, `href="/console/assets/app.css"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	// The console runs under default-src 'self': no inline script or style.
	for _, bad := range []string{"<script>", "<style", " style="} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("index.html has inline %q, which the console's CSP refuses", bad)
		}
	}
	for _, f := range []string{"assets/app.js", "assets/app.css"} {
		if b, err := fs.ReadFile(Assets(), f); err != nil || len(b) == 0 {
			t.Errorf("%s: %v (empty: %v)", f, err, len(b) == 0)
		}
	}
}

// TestBuiltConsoleIsCommitted rebuilds the console from its sources, the
// pinned packages and docs/openapi.json, and fails when the result differs
// from the committed dist/ and src/api.d.ts, as client-check does for the
// Go client: the board embeds dist/ and runs without Node.
func TestBuiltConsoleIsCommitted(t *testing.T) {
	modules := npmtest.Install(t, os.DirFS("."), "pact-console-build", "esbuild/package.json")

	// Build in a copy of the sources, so src/api.d.ts here is not rewritten,
	// with the installed packages linked in.
	work := t.TempDir()
	for _, f := range []string{"build.mjs", "tsconfig.json", "package.json", "package-lock.json"} {
		copyFile(t, f, filepath.Join(work, f))
	}
	if err := os.CopyFS(filepath.Join(work, "src"), os.DirFS("src")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(modules, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	openapi, err := filepath.Abs(filepath.Join("..", "..", "..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "build.mjs", "--out", out, "--openapi", openapi)
	cmd.Dir = work
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node build.mjs failed: %v\n%s", err, b)
	}

	stale := compareTrees(t, os.DirFS("dist"), os.DirFS(out), "dist/")
	for _, gen := range []string{"src/api.d.ts", "src/roles.gen.ts"} {
		if !sameFile(t, gen, filepath.Join(work, filepath.FromSlash(gen))) {
			stale = append(stale, gen)
		}
	}
	if len(stale) > 0 {
		t.Fatalf("modules/console/web is stale (%s): run make console and commit the result", strings.Join(stale, ", "))
	}
}

// writeCall is a call of an Admin API write in the console's source:
// api.POST("/admin/api/…", …), as openapi-fetch is called.
var writeCall = regexp.MustCompile(`\bapi\.(POST|PUT|PATCH|DELETE)\("([^"]+)"`)

// opMark is a control's mark: data-op="op", or op="op" on a ConfirmButton,
// or either with an expression whose string literals are the operations
// it may name (data-op={pinned ? "notes-unpin-note" : "notes-pin-note"}).
var (
	opMark   = regexp.MustCompile(`\b(?:data-op|op)=(?:"([^"]*)"|\{([^}]*)\})`)
	opInMark = regexp.MustCompile(`"([^"]*)"`)
)

// TestEveryWriteCallIsMarked derives CONSOLE-014's population from the
// code: every .tsx of src/ is read for its calls of Admin API writes, each
// mapped to its operationId by docs/openapi.json's method and path, and
// the file must mark a control with that operation (data-op, or op on a
// ConfirmButton), so a new write control cannot escape the role journey
// (cmd/pact-board TestConsoleWriteControlsFollowTheRoles), which reads the
// marks. Every mark names a write operation of the document that its file
// calls, so none names a read, a renamed operation or another page's.
func TestEveryWriteCallIsMarked(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			ID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	byCall := map[string]string{} // "POST /admin/api/…" → operationId
	writes := map[string]bool{}
	for path, methods := range doc.Paths {
		for method, op := range methods {
			if method != "get" {
				byCall[strings.ToUpper(method)+" "+path] = op.ID
				writes[op.ID] = true
			}
		}
	}

	var files []string
	err = filepath.WalkDir("src", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tsx") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	calls, marks := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		called := map[string]bool{}
		for _, m := range writeCall.FindAllStringSubmatch(string(src), -1) {
			op, ok := byCall[m[1]+" "+m[2]]
			if !ok {
				t.Errorf("%s calls %s %s, which is no operation of docs/openapi.json", f, m[1], m[2])
				continue
			}
			called[op] = true
			calls++
		}
		marked := map[string]bool{}
		for _, m := range opMark.FindAllStringSubmatch(string(src), -1) {
			names := []string{m[1]}
			if m[1] == "" {
				names = nil
				for _, lit := range opInMark.FindAllStringSubmatch(m[2], -1) {
					names = append(names, lit[1])
				}
			}
			for _, op := range names {
				marks++
				marked[op] = true
				switch {
				case !writes[op]:
					t.Errorf("%s marks a control with %q, which is no write operation of docs/openapi.json", f, op)
				case !called[op]:
					t.Errorf("%s marks a control with %s, which it does not call", f, op)
				}
			}
		}
		for op := range called {
			if !marked[op] {
				t.Errorf("%s calls %s, but marks no control with it: add data-op=%q to the control that calls it (or op=%q on its ConfirmButton)", f, op, op, op)
			}
		}
	}
	if calls == 0 || marks == 0 || !slices.Contains(files, filepath.Join("src", "pages", "settings.tsx")) {
		t.Fatalf("read %d files, %d write calls, %d marks: the console's source has moved", len(files), calls, marks)
	}
}

// compareTrees lists the files that differ between committed and built,
// or are in only one of them.
func compareTrees(t *testing.T, committed, built fs.FS, prefix string) []string {
	t.Helper()
	files := map[string]bool{}
	for _, tree := range []fs.FS{committed, built} {
		err := fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files[p] = true
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var stale []string
	for p := range files {
		a, errA := fs.ReadFile(committed, p)
		b, errB := fs.ReadFile(built, p)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			stale = append(stale, prefix+p)
		}
	}
	return stale
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		return false
	}
	y, err := os.ReadFile(b)
	return err == nil && bytes.Equal(x, y)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
