package notifier_test

import (
	"context"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// stdout is a notifier that refuses anything but https destinations and
// "delivers" nothing.
type stdout struct{}

func (stdout) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "example", Version: "1.0.0"}, nil
}

func (stdout) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	if len(d.URL) < 8 || d.URL[:8] != "https://" {
		return nil, errs.E(errs.InvalidRequest, "the destination must be an https:// URL")
	}
	return &d, nil
}

func (stdout) Deliver(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error) {
	return &notifier.Receipt{Status: 200}, nil
}

// A notifier plugin's main: implement the interface, hand it to Serve.
func Example() {
	notifier.Serve(stdout{})
}
