package main

import (
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
)

// wellKnown serves the board's public documents under /.well-known.
type wellKnown struct {
	keys *mandate.Keyring
}

func (wellKnown) Name() string { return "wellknown" }

// Register mounts the JWKS (the pattern has no method so the keyring itself
// answers other methods with 405) and the log's checkpoints.
func (w wellKnown) Register(h *kernel.Host) error {
	h.Handle("/.well-known/pact-keys.json", w.keys)
	return registerLog(h, w.keys)
}
