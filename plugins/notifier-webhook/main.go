// Command notifier-webhook is PACT Board's generic webhook notifier plugin:
// it posts each notification as JSON to an HTTPS endpoint, signed per the
// Standard Webhooks specification (https://www.standardwebhooks.com), so any
// receiver with a Standard Webhooks library can verify it and drop repeats by
// webhook-id. The board's plugin host runs it as a subprocess. A
// destination's options (options.go) may make the body the notification's
// data, as the board's A2A push notifications need, and add an
// Authorization or X-A2A-Notification-Token header.
//
// Environment (passed explicitly by the host):
//
//   - PACT_WEBHOOK_ALLOW_PRIVATE=1 (optional): also deliver to loopback,
//     private (RFC 1918, fc00::/7), link-local and other non-public
//     addresses, and accept plain http:// URLs to such addresses. Off by
//     default, so an org owner who configures a destination cannot make the
//     board reach into its own network. It is the platform operator's switch
//     on purpose: destinations (and their Options) are set by org owners.
package main

import (
	"os"

	"github.com/pactboard/pact/sdk/notifier"
)

func main() {
	notifier.Serve(New(Options{AllowPrivate: os.Getenv("PACT_WEBHOOK_ALLOW_PRIVATE") == "1"}))
}
