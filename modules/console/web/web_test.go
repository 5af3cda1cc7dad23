package web

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
