package main

import (
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
)

// eventsListener runs the process's event hub as a kernel worker, so it
// lives exactly as long as the other workers and is restarted like them.
type eventsListener struct {
	hub *events.Hub
}

func (eventsListener) Name() string { return "events" }

// Register adds the listener worker; a process without a hub adds nothing.
func (e eventsListener) Register(h *kernel.Host) error {
	if e.hub != nil {
		h.Worker("listen", e.hub.Run)
	}
	return nil
}
