package credentials

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/credential"
)

// publishRevocations is the revoke hook: every outside id minted for a
// mandate of the revoked subtree goes on its format's list (until the
// link's own expiry, after which no verifier would accept it anyway), and
// each list that grew gets a new version — in the revoking transaction. It
// stops no task, so its report is empty.
func (s *Service) publishRevocations(ctx context.Context, tx bun.IDB, ev mandate.RevokeEvent) (mandate.RevokeReport, error) {
	ids := make([]string, len(ev.Subtree))
	for i, id := range ev.Subtree {
		ids[i] = id.String()
	}
	err := revokeLinks(ctx, tx, ids)
	return mandate.RevokeReport{}, err
}

// revocationList is format's signed list, built fresh from the unexpired
// revoked ids by its plugin, and the list's version.
func (s *Service) revocationList(ctx context.Context, format string) (*credential.RevocationList, int64, error) {
	var version int64
	var revoked []string
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if version, err = revocationVersion(ctx, tx, format); err != nil {
			return fmt.Errorf("credentials.revocationList: %w", err)
		}
		revoked, err = revokedIDs(ctx, tx, format)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	if revoked == nil {
		revoked = []string{}
	}
	plugin, err := s.plugin(format)
	if err != nil {
		return nil, 0, err
	}
	kid, seed := s.opts.Keys.ActiveSeed()
	list, err := plugin.RevocationList(ctx, credential.RevocationRequest{Revoked: revoked, Version: version,
		Now: s.opts.Now(), Key: credential.SigningKey{Kid: kid, Seed: seed}})
	return list, version, err
}
