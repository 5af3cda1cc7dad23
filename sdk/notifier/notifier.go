// Package notifier is the contract of a notifier plugin: a separate process
// that delivers the board's notifications (approvals needed, questions,
// daily briefs, …) to a destination an operator configured, such as a Slack
// channel or a webhook.
//
// A plugin author implements [Notifier] and calls [Serve] from main:
//
//	func main() { notifier.Serve(myNotifier{}) }
//
// The author imports only this package and [github.com/pactboard/pact/sdk/errs];
// the gRPC transport, the handshake and the generated code stay inside the
// SDK. Refusals cross the process boundary as *errs.Error with their code
// intact. Test an implementation in-process over real gRPC with
// [github.com/pactboard/pact/sdk/plugintest.Notifier].
package notifier

import (
	"context"
	"time"
)

// Notification is one message for people, already redacted by the board.
type Notification struct {
	ID string // the board's notification id
	// IdempotencyKey is identical on every delivery attempt of this
	// notification; receivers drop repeats.
	IdempotencyKey string
	// Kind is approval_needed, deferred, question, task_closed,
	// awaiting_session, brief, expiring, expired, message, pact_decision,
	// pact_unread, pact_stuck or (pact webhook deliveries) pact_event.
	Kind string
	// Title and Detail are already redacted and short; never a task body.
	Title, Detail                     string
	OrgID, ProjectID, TaskID, AgentID string
	// Links are e.g. {Label: "Open task", URL: "<PACT_ADMIN_UI_URL>/tasks/<id>"}.
	Links []Link
	// Brief is set for kind "brief" when the result carried a structured report.
	Brief     *Brief
	CreatedAt time.Time
	// Language is the BCP 47 tag of the language the people reading this
	// notification chose ("en", "th"): the plugin writes its own words
	// (headlines, buttons) in it. Title and Detail are already in it or are
	// the agents' own text. Empty means English, as from an older board.
	Language string
	// Data, when set, is a raw JSON object for a receiver that acts on it
	// rather than shows it: the pact event an agent's webhook carries
	// (docs/pacts.md, "Delivery without polling"). A plugin passes it on
	// untouched or ignores it.
	Data []byte
	// HumanID, when set, is the one person this notification is for, by
	// their id in the organization (a pact's owner told of an unread
	// message); Language is then theirs. Empty: the organization's people.
	// Either way it goes to the organization's destinations.
	HumanID string
}

// Link is a labelled URL shown with a notification (a button on a card).
type Link struct{ Label, URL string }

// Brief is the structured daily brief.
type Brief struct {
	Greeting string
	Sections []BriefSection
}

// BriefSection is one titled list of a [Brief].
type BriefSection struct {
	Title string
	Items []BriefItem
}

// BriefItem is one line of a [BriefSection]. URL is the task's Admin UI link
// when known.
type BriefItem struct{ Text, TaskID, URL string }

// Destination is where an operator sends notifications through a plugin.
type Destination struct {
	URL string
	// Secret is e.g. a webhook's whsec_… signing secret.
	Secret string
	// Options are plugin-specific settings.
	Options map[string]string
}

// Capabilities describes a notifier plugin.
type Capabilities struct {
	Name, Version string
	// Kinds lists the notification kinds it accepts; empty means all.
	Kinds []string
	// Structured reports that it renders Brief sections.
	Structured bool
}

// Receipt is the receiver's answer to one delivery.
type Receipt struct {
	Status int    // the receiver's HTTP status, when there is one
	Detail string // e.g. the receiver's answer, cut short
}

// Notifier is what a notifier plugin implements. Every method may be called
// concurrently.
type Notifier interface {
	// Capabilities describes the plugin.
	Capabilities(ctx context.Context) (*Capabilities, error)
	// PrepareDestination checks a destination an operator configures and
	// completes it (a webhook plugin generates its secret here; the board
	// shows it once). Refusal: errs.InvalidRequest.
	PrepareDestination(ctx context.Context, d Destination) (*Destination, error)
	// Deliver sends one notification. errs.Unavailable: worth retrying
	// (timeouts, 5xx, 429); errs.InvalidRequest: never worth retrying (the
	// destination refuses it for good). The receiver's error text is kept in
	// the error's message.
	Deliver(ctx context.Context, d Destination, n Notification) (*Receipt, error)
}
