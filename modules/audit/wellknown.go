package audit

import (
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
)

// WellKnown is the module that serves the board's public documents under
// /.well-known: the mandate keyring's JWKS and the log's verifier keys and
// signed checkpoints (docs/log-checkpoints.md), with the worker that signs
// checkpoints and sends them to the witnesses.
func WellKnown(keys *mandate.Keyring) kernel.Module { return wellKnown{keys: keys} }

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
