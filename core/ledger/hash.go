package ledger

import "github.com/pactboard/pact/core/logformat"

// hashed is what an entry's hash covers; core/logformat defines it, so
// that pact-verify checks a bundle with the same code, without a database.
type hashed = logformat.Hashed

// hashHex is the lowercase hex SHA-256 of b.
func hashHex(b []byte) [64]byte { return logformat.HashHex(b) }

// bytesOf is s as bytes, and "" as nil (null), as Append passes ids.
func bytesOf(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}
