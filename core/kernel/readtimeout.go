package kernel

import (
	"errors"
	"os"
	"time"
)

// MaxRequestRead is the board's http.Server ReadTimeout: how long a client
// has to send a whole request, headers and body. Every body the board
// takes is small (the largest, a task, is well under a megabyte) and a
// client that has one sends it at once; a client that dribbles it would
// otherwise hold a connection and a goroutine for as long as it liked, on
// routes such as POST /connect that read the body before any
// authentication (docs/security.md, "7. Caps").
//
// It does not cut held pact_wait and pact_events calls (up to 50 s), nor
// the MCP event stream: net/http lifts the deadline once a handler has
// read its request's body to the end.
const MaxRequestRead = 30 * time.Second

// IsReadTimeout reports whether err is a request body that did not arrive
// within the server's ReadTimeout; the answer to it is 408 Request Timeout.
func IsReadTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}
