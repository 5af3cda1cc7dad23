package archtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoBuiltBinaryIsTracked keeps executables out of the repository: a
// `go build ./cmd/x` at the root leaves one there, and once tracked it is
// copied into every scratch tree (make proofs) and every clone. The
// population is git's own list of tracked files.
func TestNoBuiltBinaryIsTracked(t *testing.T) {
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	require.NoError(t, err, "git ls-files (git is needed to list the tracked files)")
	var binaries []string
	for _, name := range bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0}) {
		f, err := os.Open(filepath.Join(root, string(name)))
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		magic := make([]byte, 4)
		n, _ := f.Read(magic)
		_ = f.Close()
		if n == 4 && (bytes.Equal(magic, []byte("\x7fELF")) || bytes.Equal(magic[:2], []byte("MZ"))) {
			binaries = append(binaries, string(name))
		}
	}
	require.Empty(t, binaries, "built executables are tracked; `git rm --cached` them and list them in .gitignore")
}
