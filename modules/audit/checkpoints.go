package audit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// logKeys are the checkpoint signer (the keyring's active key) and the
// verifier keys of every key of the keyring (docs/log-checkpoints.md).
func logKeys(keys *mandate.Keyring, publicURL string) (*ledger.Checkpoints, []string, error) {
	s, origin, vkeys, err := logformat.BoardKeys(publicURL, keys.Kids(), func(kid string) []byte {
		seed, _ := keys.Seed(kid)
		return seed
	})
	if err != nil {
		return nil, nil, fmt.Errorf("PACT_PUBLIC_URL: %w", err)
	}
	return &ledger.Checkpoints{Signer: s, Origin: origin}, vkeys, nil
}

// registerLog serves the log's verifier keys and latest checkpoints, and
// runs the worker that signs checkpoints and sends them to the witnesses.
func registerLog(h *kernel.Host, keys *mandate.Keyring) error {
	cfg := h.Config()
	cp, vkeys, err := logKeys(keys, cfg.PublicURL)
	if err != nil {
		return err
	}
	h.Handle("GET /.well-known/pact-log/keys", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(strings.Join(vkeys, "\n") + "\n"))
	}))
	h.Handle("GET /.well-known/pact-log/{chain}/checkpoint", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		signed, err := h.Log().Latest(r.Context(), h.DB(), r.PathValue("chain"))
		switch {
		case errors.Is(err, ledger.ErrNoCheckpoint):
			kernel.WriteError(w, http.StatusNotFound, errs.E(errs.NotFound, "chain %s has no checkpoint", r.PathValue("chain")))
			return
		case err != nil:
			h.Logger().Error("latest checkpoint", "error", err)
			kernel.WriteError(w, http.StatusServiceUnavailable, errs.E(errs.Unavailable, "the log's checkpoints cannot be read now; try again"))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(signed))
	}))
	if cfg.CheckpointEvery <= 0 {
		return nil
	}
	cp.Entries, cp.Every, cp.Metrics = cfg.CheckpointEntries, cfg.CheckpointEvery, h.Metrics()
	wit := &ledger.Witnesses{URLs: cfg.Witnesses, Client: &http.Client{Timeout: 15 * time.Second}}
	h.Worker("checkpoints", func(ctx context.Context) error {
		if err := wit.Register(ctx, h.DB()); err != nil {
			return err
		}
		tick := time.NewTicker(min(cp.Every, 5*time.Second))
		defer tick.Stop()
		for {
			if signed, err := cp.Take(ctx, h.DB(), time.Now()); err != nil {
				h.Logger().Warn("log checkpoints", "error", err)
			} else if len(signed) > 0 {
				h.Logger().Debug("log checkpoints signed", "chains", len(signed))
			}
			if _, err := wit.Deliver(ctx, h.DB()); err != nil {
				h.Logger().Warn("log witnesses: will try again", "error", err)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
		}
	})
	return nil
}
