package credentials

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// keyClients are the agents that may hold an Ed25519 key, and so a
// credential: only they run on machines that can keep a private key.
var keyClients = map[string]bool{"code": true, "runner": true}

// exportOnClaim is what a claim adds (seams.ClaimedHook): it exports the claim's verified chain as
// a credential held by the agent's registered key and records every outside
// id minted for each link. It never fails the claim: when no credential can
// be issued the answer carries credential_note saying why.
func (s *Service) exportOnClaim(ctx context.Context, tx bun.IDB, c seams.Claimed) map[string]any {
	// A savepoint: a failed statement here must not abort the claim's
	// transaction.
	var out map[string]any
	err := db.Savepoint(ctx, tx, func(ctx context.Context) error {
		var err error
		out, err = s.export(ctx, tx, c)
		return err
	})
	if err != nil {
		s.logger.Error("credential export", "agent", c.AgentID, "error", err)
		return note("the board could not issue a credential; the claim stands")
	}
	return out
}

func note(msg string) map[string]any { return map[string]any{"credential_note": msg} }

// export does exportOnClaim's work; its error (a database failure) rolls
// the savepoint back.
func (s *Service) export(ctx context.Context, tx bun.IDB, c seams.Claimed) (map[string]any, error) {
	agent, err := holderOf(ctx, tx, c.AgentID)
	switch {
	case err != nil:
		return nil, err
	case !keyClients[agent.Client]:
		return note(agent.Client + " agents hold no keys, so they get no credential; only code and runner agents do"), nil
	case len(agent.Key) == 0:
		return note("agent " + c.AgentID + " has no registered key (pact-admin agent-key-add); no credential was issued"), nil
	}
	chain, err := s.mandates.Lineage(ctx, tx, c.MandateID)
	if err != nil {
		return nil, err
	}
	plugin, err := s.plugin(s.format)
	if err != nil {
		return note(errs.Public(err).Message), nil
	}
	kid, seed := s.opts.Keys.ActiveSeed()
	exported, err := plugin.Export(ctx, credential.ExportRequest{Chain: links(chain), HolderKey: agent.Key, TTL: s.ttl,
		Now: s.opts.Now(), Key: credential.SigningKey{Kid: kid, Seed: seed}})
	if err != nil {
		if e, ok := errs.As(err); ok && e.Code == errs.InvalidRequest {
			return note(e.Message), nil
		}
		s.logger.Warn("credential export failed; the claim stands", "format", s.format, "error", err)
		return note("the " + s.format + " credential could not be issued: " + errs.Public(err).Message), nil
	}
	for link, ids := range exported.LinkIDs {
		for _, id := range ids {
			if err := insertLink(ctx, tx, exported.Format, id, link); err != nil {
				return nil, err
			}
		}
	}
	return map[string]any{"credential": map[string]any{"format": exported.Format, "external_id": exported.ExternalID,
		exported.Field: exported.Credential}}, nil
}

// links describes a verified chain to a credential plugin.
func links(chain mandate.Chain) []credential.Link {
	out := make([]credential.Link, len(chain))
	for i, l := range chain {
		parent := ""
		if l.ParentID != nil {
			parent = l.ParentID.String()
		}
		out[i] = credential.Link{ID: l.ID.String(), ParentID: parent, IssuerKind: l.IssuerKind, Issuer: l.Issuer,
			Holder: l.Holder, Scope: l.Scope, Limits: l.Limits, DelegationsLeft: l.DelegationsLeft, Depth: l.Depth,
			ExpiresAt: l.ExpiresAt}
	}
	return out
}
