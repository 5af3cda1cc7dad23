// Command notifier-hello is an example third-party PACT Board notifier: it
// appends each notification as one JSON line to the file named by
// HELLO_FILE. It is its own Go module and imports only the SDK.
package main

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

type hello struct {
	mu   sync.Mutex
	path string
}

func (h *hello) Capabilities(context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "notifier-hello", Version: "0.1.0", Structured: true}, nil
}

// PrepareDestination needs nothing from the operator: the file is HELLO_FILE.
func (h *hello) PrepareDestination(_ context.Context, d notifier.Destination) (*notifier.Destination, error) {
	if h.path == "" {
		return nil, errs.E(errs.InvalidRequest, "HELLO_FILE is not set in the plugin's env")
	}
	return &d, nil
}

func (h *hello) Deliver(_ context.Context, _ notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	line, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, errs.E(errs.Unavailable, "open %s: %v", h.path, err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		return nil, errs.E(errs.Unavailable, "write %s: %v", h.path, err)
	}
	return &notifier.Receipt{Status: 200, Detail: "appended to " + h.path}, nil
}

func main() {
	notifier.Serve(&hello{path: os.Getenv("HELLO_FILE")})
}
