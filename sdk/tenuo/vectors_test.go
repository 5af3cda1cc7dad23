package tenuo

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vectorsDir finds Tenuo's vectors: PACT_TENUO_VECTORS, or else
// shared/vectors/tenuo beside the repository (found by walking up to the
// root module's go.mod, so it works from any package and any working
// directory). A missing folder skips the test and says why: the vectors
// are never copied into the repository.
func vectorsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PACT_TENUO_VECTORS")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
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
	if _, err := os.Stat(filepath.Join(dir, "test-vectors.md")); err != nil {
		t.Skipf("SKIP: Tenuo vectors not found at %s (%v); set PACT_TENUO_VECTORS to the folder with test-vectors.md", dir, err)
	}
	return dir
}

// block is one fenced code block of test-vectors.md with the section
// heading and the bold label above it.
type block struct {
	heading, label, text string
}

func (b block) hex(t *testing.T) []byte {
	t.Helper()
	out, err := hex.DecodeString(strings.Join(strings.Fields(b.text), ""))
	if err != nil {
		t.Fatalf("%s / %s: %v", b.heading, b.label, err)
	}
	return out
}

func readBlocks(t *testing.T) []block {
	t.Helper()
	f, err := os.Open(filepath.Join(vectorsDir(t), "test-vectors.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
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
				out = append(out, block{heading, label, cur.String()})
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
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("test-vectors.md: only %d code blocks; not the expected file", len(out))
	}
	return out
}

// find returns the blocks under a heading starting with h whose label
// starts with l.
func find(bs []block, h, l string) []block {
	var out []block
	for _, b := range bs {
		if strings.HasPrefix(b.heading, h) && strings.HasPrefix(b.label, l) {
			out = append(out, b)
		}
	}
	return out
}

// pair is a payload and the signature printed after it.
type pair struct {
	heading        string
	payload, sig   []byte
	payloadHexText string
}

func signedPairs(t *testing.T, bs []block) []pair {
	t.Helper()
	var out []pair
	for i, b := range bs {
		if !strings.HasPrefix(b.label, "**Payload CBOR") && !strings.HasPrefix(b.label, "**Invalid Child Payload CBOR") {
			continue
		}
		for _, s := range bs[i+1:] {
			if strings.HasPrefix(s.label, "**Signature (64") || strings.HasPrefix(s.label, "**Invalid Child Signature") {
				out = append(out, pair{b.heading, b.hex(t), s.hex(t), b.text})
				break
			}
		}
	}
	if len(out) < 30 {
		t.Fatalf("found only %d payload/signature pairs", len(out))
	}
	return out
}

// seeds are the generator's fixed keys (test-vectors.md "Key Material",
// approvers 0x11–0x13), by public key.
func seeds() map[string][]byte {
	out := map[string][]byte{}
	for _, b := range []byte{0x01, 0x02, 0x03, 0x04, 0xff, 0x11, 0x12, 0x13} {
		seed := bytes.Repeat([]byte{b}, 32)
		pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
		out[string(pub)] = seed
	}
	return out
}

func seedOf(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func pubOf(b byte) ed25519.PublicKey {
	return ed25519.NewKeyFromSeed(seedOf(b)).Public().(ed25519.PublicKey)
}
