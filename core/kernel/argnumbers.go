package kernel

import (
	"math"
	"strconv"

	"github.com/pactboard/pact/sdk/errs"
)

// The numbers a tool call's arguments may hold (docs/canonical-json.md,
// "Numbers in tool arguments"; docs/invariants.md SEC-001). The pipeline
// reads the arguments as doubles (the schema check, reads ahead), the tool
// reads them into its own types and the log writes them in canonical JSON,
// which spells a whole number digit by digit with math/big: a number all
// three read alike, and cheaply, is a double short to write whose whole
// values stay within ±2^53.
const (
	// maxNumberLength bounds a number's spelling. The longest a double
	// needs is 24 characters (-2.2250738585072014e-308); the bound leaves
	// room for padding zeros and keeps every parse below cheap.
	maxNumberLength = 40
	// maxExactInteger is 2^53: every whole number up to it is exact in a
	// double, so the log's digits and the tool's value agree.
	maxExactInteger = 1 << 53
	// shownNumberLength is how much of a refused number its message repeats.
	shownNumberLength = 24
)

// checkArgNumbers refuses arguments holding a number canonical JSON cannot
// carry faithfully (faithfulNumber). args must be valid JSON. It reads the
// text once, in time linear in its length, and parses no number longer than
// maxNumberLength, so a number of millions of digits costs one scan.
func checkArgNumbers(args []byte) error {
	inString := false
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped byte cannot end the string
		case c == '"':
			inString = !inString
		case !inString && (c == '-' || c >= '0' && c <= '9'):
			end := i
			for end < len(args) && isNumberByte(args[end]) {
				end++
			}
			if err := faithfulNumber(args[i:end]); err != nil {
				return err
			}
			i = end - 1
		}
	}
	return nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// faithfulNumber accepts a JSON number literal when it is at most
// maxNumberLength characters, a finite double that is not a non-zero
// number rounded to zero, and, when its value is whole, within
// ±maxExactInteger (an integer literal is checked as written, before any
// rounding). Other numbers round to the nearest double, as canonical JSON
// always wrote them.
func faithfulNumber(lit []byte) error {
	if len(lit) > maxNumberLength {
		return numberRefused(lit)
	}
	s := string(lit)
	if integerLiteral(lit) {
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil || i > maxExactInteger || i < -maxExactInteger {
			return numberRefused(lit)
		}
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil: // beyond a double's range, or malformed
		return numberRefused(lit)
	case f == 0 && nonZeroMantissa(lit): // too small for a double: the log would say 0
		return numberRefused(lit)
	case f == math.Trunc(f) && math.Abs(f) > maxExactInteger:
		return numberRefused(lit)
	}
	return nil
}

func integerLiteral(lit []byte) bool {
	for _, c := range lit {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// nonZeroMantissa reports whether a digit before the exponent is not 0.
func nonZeroMantissa(lit []byte) bool {
	for _, c := range lit {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

func numberRefused(lit []byte) error {
	shown := string(lit)
	if len(lit) > shownNumberLength {
		shown = string(lit[:shownNumberLength]) + "…"
	}
	return errs.E(errs.InvalidRequest, "the arguments hold the number %s (%d characters), which the board cannot "+
		"record faithfully: a number must be a double written in at most %d characters, and a whole number must lie "+
		"within ±%d (2^53); send a larger or more precise value as a string", shown, len(lit), maxNumberLength,
		maxExactInteger)
}
