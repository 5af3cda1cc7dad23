// Package crash is pact-proofs' subject for a test binary that ends before
// its test does (a panic in a goroutine) and one whose TestMain fails
// before any test runs; PROOFS_CRASH says which.
package crash

import (
	"os"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("PROOFS_CRASH") == "main" {
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestWorkerRuns(t *testing.T) {
	done := make(chan struct{})
	go func() {
		if os.Getenv("PROOFS_CRASH") == "goroutine" {
			var was []bool
			_ = was[0] // as a mutated store's len(was) != 1 && was[0]
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}
