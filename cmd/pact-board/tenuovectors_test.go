package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tenuoVectors is Tenuo's test-vectors.md, read where it lies beside the
// repository (../shared/vectors/tenuo, or PACT_TENUO_VECTORS, as
// sdk/tenuo's tests and make proofs find it): the vectors are never copied
// into the repository.
type tenuoVectors struct {
	blocks []tenuoBlock
}

// tenuoBlock is one fenced code block with the section heading and the
// bold label above it.
type tenuoBlock struct{ heading, label, text string }

// readTenuoVectors reads the vectors, or skips the test saying why when
// they are not there.
func readTenuoVectors(t *testing.T) *tenuoVectors {
	t.Helper()
	dir := os.Getenv("PACT_TENUO_VECTORS")
	if dir == "" {
		wd, err := os.Getwd()
		require.NoError(t, err)
		for d := wd; ; d = filepath.Dir(d) {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil &&
				bytes.Contains(b, []byte("module github.com/pactboard/pact\n")) {
				dir = filepath.Join(d, "..", "shared", "vectors", "tenuo")
				break
			}
			if filepath.Dir(d) == d {
				t.Skipf("SKIP: Tenuo vectors not found: no root go.mod above %s; set PACT_TENUO_VECTORS", wd)
			}
		}
	}
	f, err := os.Open(filepath.Join(dir, "test-vectors.md"))
	if err != nil {
		t.Skipf("SKIP: Tenuo vectors not found at %s (%v); set PACT_TENUO_VECTORS to the folder with test-vectors.md", dir, err)
	}
	defer f.Close()
	v := &tenuoVectors{}
	var heading, label string
	var cur *strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			if cur == nil {
				cur = &strings.Builder{}
			} else {
				v.blocks = append(v.blocks, tenuoBlock{heading, label, cur.String()})
				cur = nil
			}
		case cur != nil:
			cur.WriteString(line + "\n")
		case strings.HasPrefix(line, "#"):
			heading, label = strings.TrimLeft(line, "# "), ""
		case strings.HasPrefix(line, "**"):
			label = line
		}
	}
	require.NoError(t, sc.Err())
	require.Greater(t, len(v.blocks), 50, "test-vectors.md: not the expected file")
	return v
}

// block is the text of the one code block under a heading starting with
// heading whose label starts with label.
func (v *tenuoVectors) block(t *testing.T, heading, label string) string {
	t.Helper()
	for _, b := range v.blocks {
		if strings.HasPrefix(b.heading, heading) && strings.HasPrefix(b.label, label) {
			return b.text
		}
	}
	require.Failf(t, "test-vectors.md", "no code block under %q labelled %q", heading, label)
	return ""
}

// seed is the 32-byte seed of a role of the vectors' key material
// ("Control Plane", "Orchestrator", "Worker"…).
func (v *tenuoVectors) seed(t *testing.T, role string) []byte {
	t.Helper()
	for _, line := range strings.Split(v.block(t, "Key Material", "**Full Seeds"), "\n") {
		if name, h, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == role {
			b, err := hex.DecodeString(strings.TrimSpace(h))
			require.NoError(t, err, line)
			require.Len(t, b, 32, line)
			return b
		}
	}
	require.Failf(t, "test-vectors.md", "no seed for %q", role)
	return nil
}
