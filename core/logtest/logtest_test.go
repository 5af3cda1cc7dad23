package logtest_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

var _ io.Writer = (*logtest.Buffer)(nil)

// Writers and a reader at once lose no write and tear no line, and the
// reader only ever sees the log grow (run with -race to catch an unguarded
// access).
func TestConcurrentWritersAndAReader(t *testing.T) {
	const writers, lines = 8, 200
	var b logtest.Buffer
	stop, read := make(chan struct{}), make(chan error, 1)
	go func() {
		prev := ""
		for {
			select {
			case <-stop:
				read <- nil
				return
			default:
			}
			now := b.String()
			if !strings.HasPrefix(now, prev) {
				read <- fmt.Errorf("the log of %d bytes changed what it held, now %d bytes", len(prev), len(now))
				return
			}
			prev = now
			_, _ = b.Contains("line 1"), b.Line("writer 0")
		}
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				if _, err := fmt.Fprintf(&b, "writer %d line %d\n", w, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	require.NoError(t, <-read)

	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, got, writers*lines)
	seen := map[string]bool{}
	for _, l := range got {
		seen[l] = true
	}
	for w := range writers {
		for i := range lines {
			require.True(t, seen[fmt.Sprintf("writer %d line %d", w, i)], "writer %d line %d", w, i)
		}
	}
}

func TestTheZeroValueIsEmpty(t *testing.T) {
	var b logtest.Buffer
	require.Empty(t, b.String())
	require.False(t, b.Contains("x"))
	require.Empty(t, b.Line("x"))
	require.True(t, b.Contains(""), "every log contains the empty string")
}

func TestContains(t *testing.T) {
	var b logtest.Buffer
	_, _ = b.Write([]byte("level=info msg=started\n"))
	require.True(t, b.Contains("msg=started"))
	require.False(t, b.Contains("msg=stopped"))
	require.Equal(t, "level=info msg=started\n", b.String())
}

// Line returns the first matching line whole, newline included; a match
// on a later line does not reach back into an earlier one.
func TestLine(t *testing.T) {
	var b logtest.Buffer
	_, _ = b.Write([]byte("a: one\nb: two\nb: three\nlast without newline"))
	require.Equal(t, "b: two\n", b.Line("b:"))
	require.Equal(t, "b: three\n", b.Line("three"))
	require.Equal(t, "last without newline", b.Line("without"))
	require.Empty(t, b.Line("one\nb"), "a match across lines is no line's")
	require.Empty(t, b.Line("absent"))
}
