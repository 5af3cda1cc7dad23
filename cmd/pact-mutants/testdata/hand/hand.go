// Package hand is pact-mutants' subject for running mutants: a statement one
// test reaches, a switch's cases, which Go's cover profile does not see, a
// function no test reaches, and a string join whose - does not compile.
package hand

// Sign names n's sign.
func Sign(n int) string {
	switch {
	case n < 0:
		return "negative"
	case n == 0:
		return "zero"
	}
	return "positive"
}

// Untested is reached by no test.
func Untested(n int) bool { return n > 1 }

// Join joins two strings.
func Join(a, b string) string { return a + b }

// Double is reached by TestDouble alone.
func Double(n int) int { return n * 2 }
