// Command testnotifier is a notifier plugin that misbehaves on request, for
// the plugin host's tests. Destination.Options["mode"] picks the behaviour:
// "hang" never answers, "crash" exits mid-call, "env" answers with the
// value of the variable Options["var"]; anything else delivers.
package main

import (
	"context"
	"os"
	"time"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

type testNotifier struct{}

func (testNotifier) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "testnotifier", Version: "1", Kinds: []string{"message"}}, nil
}

func (testNotifier) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	if d.URL == "" {
		return nil, errs.E(errs.InvalidRequest, "a destination needs a URL")
	}
	return &d, nil
}

func (testNotifier) Deliver(_ context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	switch d.Options["mode"] {
	case "hang":
		time.Sleep(time.Hour)
	case "crash":
		os.Exit(3)
	case "env":
		v, ok := os.LookupEnv(d.Options["var"])
		if !ok {
			return &notifier.Receipt{Detail: "<unset>"}, nil
		}
		return &notifier.Receipt{Detail: v}, nil
	}
	return &notifier.Receipt{Status: 200, Detail: n.IdempotencyKey}, nil
}

func main() { notifier.Serve(testNotifier{}) }
