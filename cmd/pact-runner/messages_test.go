package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A message's body is logged cut to at most n bytes, never inside a
// character, with the cut marked; a body that fits is logged whole. Bytes
// that start no character are never read before the body's start.
func TestShortenCutsOnACharacterAndMarksTheCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 6, "hello"},
		{"hello!", 5, "hello…"},
		{"héllo", 2, "h…"}, // é is bytes 1–2: cut before it, not inside
		{"héllo", 3, "hé…"},
		{"日本語", 4, "日…"}, // each is 3 bytes
		{"日本語", 6, "日本…"},
		{"日本語", 2, "…"},
		{"\x80\x80\x80abc", 2, "…"}, // no character starts before the cut: nothing is kept
	} {
		require.Equal(t, c.want, shorten(c.in, c.n), "shorten(%q, %d)", c.in, c.n)
	}
}
