package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// buildsAWorld matches what only a test harness does: build a kernel, or
// set huma's global error constructor.
var buildsAWorld = regexp.MustCompile(`\bkernel\.New\(|\bhuma\.NewError(WithContext)? = `)

// harnessHomes may build a kernel in tests: the kernel's own tests (they
// test kernel.New itself) and the one harness, core/kernel/kerneltest.
var harnessHomes = []string{"core/kernel", "core/kernel/kerneltest"}

// harnessCopies returns the test files under root, among files, that build
// their own world outside the harness's homes.
func harnessCopies(t *testing.T, root string, files []string) []string {
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") || slices.Contains(harnessHomes, filepath.Dir(f)) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		if buildsAWorld.Match(raw) {
			out = append(out, f)
		}
	}
	return out
}

// One test harness: no test outside core/kernel builds its own kernel or
// sets huma's error; it uses core/kernel/kerneltest. The population is
// every test file git tracks in the root module.
func TestOneTestHarness(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "ls-files", "*_test.go").Output()
	require.NoError(t, err)
	files := strings.Fields(string(out))
	require.Greater(t, len(files), 50, "git ls-files found too few test files")
	for _, f := range harnessCopies(t, "../..", files) {
		t.Errorf("%s builds its own kernel or sets huma's error: use core/kernel/kerneltest", f)
	}
}

// The harness rule catches a copy and spares the harness's homes.
func TestHarnessRuleCatchesACopy(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, path), []byte(text), 0o644))
	}
	// Spelled in pieces, so this file is not a copy itself.
	newKernel, setError := "kernel.New"+"(kernel.Deps{})", "huma.NewError"+" = nil"
	write("modules/x/x_test.go", "package x\nvar k = "+newKernel+"\n")
	write("modules/y/y_test.go", "package y\nfunc init() { "+setError+" }\n")
	write("modules/z/z_test.go", "package z\nvar w = kerneltest.New(t, kerneltest.Options{})\n")
	write("core/kernel/kernel_test.go", "package kernel\nvar k = "+newKernel+"\n")
	write("modules/x/x.go", "package x\nvar k = "+newKernel+"\n")
	got := harnessCopies(t, root, []string{"modules/x/x_test.go", "modules/y/y_test.go", "modules/z/z_test.go",
		"core/kernel/kernel_test.go", "modules/x/x.go"})
	require.Equal(t, []string{"modules/x/x_test.go", "modules/y/y_test.go"}, got)
}
