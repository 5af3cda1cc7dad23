// Command notifier-slack is PACT Board's Slack notifier plugin: it turns the
// board's notifications into Block Kit cards and posts them to Slack incoming
// webhooks. The board's plugin host runs it as a subprocess. A card's own
// words (headline, buttons, "by <agent>") are written in the language the
// board names in each notification (English, or Thai as in
// docs/specs/behavior.md §8.7), from the catalogs under locales/.
//
// Environment (passed explicitly by the host; the board's own environment is
// not inherited):
//
//   - PACT_ADMIN_UI_URL (optional): the Admin UI's base URL. A daily brief's
//     "Open the board" button and its per-task buttons use it when the
//     notification itself carries no such links.
//   - PACT_SLACK_API_BASE (tests only): a base URL such as
//     http://127.0.0.1:8080 that replaces https://hooks.slack.com when
//     posting, so a test can point the plugin at a local receiver.
//     Destinations are still checked against hooks.slack.com; never set it in
//     production.
package main

import (
	"os"

	"github.com/pactboard/pact/sdk/notifier"
)

func main() {
	notifier.Serve(New(Options{
		AdminUIURL: os.Getenv("PACT_ADMIN_UI_URL"),
		APIBase:    os.Getenv("PACT_SLACK_API_BASE"),
	}))
}
