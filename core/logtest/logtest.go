// Package logtest is a log sink for tests: a server's goroutines write to
// it while the test reads what they logged, so it must be safe for both at
// once, which a bare bytes.Buffer is not.
package logtest

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is an io.Writer safe for concurrent writes and reads. Its zero
// value is ready to use; it must not be copied after first use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Contains reports whether s was logged, for a test polling until it is.
func (b *Buffer) Contains(s string) bool { return strings.Contains(b.String(), s) }

// Line returns the first line that contains s, newline included, or "":
// a test checks the rest of that one entry, not of the whole log.
func (b *Buffer) Line(s string) string {
	for line := range strings.Lines(b.String()) {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
