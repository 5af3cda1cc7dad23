// Command notifier-email is PACT Board's email notifier plugin: it sends
// each notice, as plain text in the recipient's language, to the one
// person its destination names (mailto:<address>), through an SMTP server
// (github.com/wneessen/go-mail). The board runs it when PACT_SMTP_URL is
// set and hands it one delivery per person a notice concerns who chose to
// have its kind emailed (docs/notifications.md, "Email").
//
// Environment (passed explicitly by the host; the board's own environment
// is not inherited, and nothing is read from the command line):
//
//   - PACT_SMTP_URL (required):
//     smtp://user:pass@host:587?from=board@example.com&tls=starttls|tls|none.
//     tls defaults to starttls (smtps:// to tls); the port to 587, 465 for
//     tls and 25 for none.
package main

import (
	"fmt"
	"os"

	"github.com/pactboard/pact/sdk/notifier"
)

func main() {
	cfg, err := ParseSMTPURL(os.Getenv("PACT_SMTP_URL"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "notifier-email: PACT_SMTP_URL: %v\n", err)
		os.Exit(1)
	}
	notifier.Serve(New(cfg, Options{}))
}
