package credentials

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// publishRevocations is the revoke hook: every outside id minted for a
// mandate of the revoked subtree goes on its format's list (until the
// link's own expiry, after which no verifier would accept it anyway), and
// each list that grew gets a new version — in the revoking transaction. It
// stops no task, so its report is empty.
func (m *Module) publishRevocations(ctx context.Context, tx bun.IDB, ev mandate.RevokeEvent) (mandate.RevokeReport, error) {
	ids := make([]string, len(ev.Subtree))
	for i, id := range ev.Subtree {
		ids[i] = id.String()
	}
	_, err := tx.ExecContext(ctx, `WITH added AS (
			INSERT INTO credential_revocations (external_id, format, expires_at)
			SELECT l.external_id, l.format, md.expires_at FROM credential_links l JOIN mandates md ON md.id = l.mandate_id
			WHERE l.mandate_id = ANY(?::uuid[])
			ON CONFLICT (external_id) DO NOTHING RETURNING format)
		UPDATE credential_revocation_version SET version = version + 1
		WHERE format IN (SELECT DISTINCT format FROM added)`, pgdialect.Array(ids))
	return mandate.RevokeReport{}, err
}

// serveList answers GET /.well-known/pact-revocations/<format>: the format's
// signed list, built fresh on every request from the unexpired revoked ids.
func (m *Module) serveList(w http.ResponseWriter, r *http.Request) {
	format := r.PathValue("format")
	if !formats[format] {
		kernel.WriteError(w, http.StatusNotFound, errs.E(errs.NotFound, "no revocation list for format '%s'", format))
		return
	}
	list, version, err := m.revocationList(r.Context(), format)
	if err != nil {
		p := kernel.Public(err) // a plugin or the database down is 503 unavailable
		if p.Code != errs.Unavailable {
			m.logger.Error("revocation list", "format", format, "error", err)
		}
		kernel.WriteError(w, kernel.AdminStatus(p.Code), p)
		return
	}
	h := w.Header()
	h.Set("Content-Type", list.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(list.Body)))
	h.Set("Cache-Control", "no-store")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "x-pact-revocations-version")
	h.Set("X-Pact-Revocations-Version", strconv.FormatInt(version, 10))
	_, _ = w.Write(list.Body)
}

func (m *Module) revocationList(ctx context.Context, format string) (*credential.RevocationList, int64, error) {
	var version int64
	var revoked []string
	err := m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewRaw(`SELECT version FROM credential_revocation_version WHERE format = ?`, format).Scan(ctx, &version); err != nil {
			return fmt.Errorf("credentials.revocationList: %w", err)
		}
		return tx.NewRaw(`SELECT external_id FROM credential_revocations WHERE format = ? AND expires_at > now()
			ORDER BY external_id`, format).Scan(ctx, &revoked)
	})
	if err != nil {
		return nil, 0, err
	}
	if revoked == nil {
		revoked = []string{}
	}
	plugin, err := m.plugin(format)
	if err != nil {
		return nil, 0, err
	}
	kid, seed := m.opts.Keys.ActiveSeed()
	list, err := plugin.RevocationList(ctx, credential.RevocationRequest{Revoked: revoked, Version: version,
		Now: m.opts.Now(), Key: credential.SigningKey{Kid: kid, Seed: seed}})
	return list, version, err
}

// plugin returns the credential plugin of format, or Unavailable.
func (m *Module) plugin(format string) (credential.Credential, error) {
	if m.opts.Plugins == nil {
		return nil, errs.E(errs.Unavailable, "no credential plugin is configured for %s (PACT_PLUGINS)", format)
	}
	p, err := m.opts.Plugins.Credential(format)
	if err != nil {
		if errs.CodeOf(err) == errs.NotFound {
			return nil, errs.E(errs.Unavailable, "no credential plugin named %s in PACT_PLUGINS", format)
		}
		return nil, fmt.Errorf("credential plugin %s: %w", format, err)
	}
	return p, nil
}
