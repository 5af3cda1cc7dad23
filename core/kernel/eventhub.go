package kernel

import "github.com/pactboard/pact/core/events"

// EventHub is the module that runs the process's event hub as a worker, so
// it lives exactly as long as the other workers and is restarted like them.
// A nil hub adds nothing. (A kernel built for tests that never calls Run
// runs its hub itself.)
func EventHub(hub *events.Hub) Module { return eventHub{hub: hub} }

type eventHub struct {
	hub *events.Hub
}

func (eventHub) Name() string { return "events" }

func (e eventHub) Register(h *Host) error {
	if e.hub != nil {
		h.Worker("listen", e.hub.Run)
	}
	return nil
}
