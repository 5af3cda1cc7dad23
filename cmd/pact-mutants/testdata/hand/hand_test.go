package hand

import (
	"os"
	"testing"
	"time"
)

func TestSign(t *testing.T) {
	for n, want := range map[int]string{-1: "negative", 0: "zero", 1: "positive"} {
		if got := Sign(n); got != want {
			t.Fatalf("Sign(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestDouble(t *testing.T) {
	if Double(3) != 6 {
		t.Fatal("Double(3) is not 6")
	}
}

// TestHangs hangs where pact-mutants' test asks it to, to be timed out.
func TestHangs(t *testing.T) {
	if os.Getenv("PACT_MUTANTS_HANG") != "" {
		time.Sleep(time.Minute)
	}
}
