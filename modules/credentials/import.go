package credentials

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// maxImportedDelegations caps how far an imported root may delegate on the
// board (the credential may allow less).
const maxImportedDelegations = 2

// ImportCredential turns an outside credential issued by one of the
// organization's trusted roots into a root mandate for agent (approvers
// only; agents can never import for themselves). plugin verifies the
// credential against the live trusted roots and the agent's live keys; the
// new root's issuer is the person the trusted root stands for, it expires
// with the credential, and it answers to that root on every use.
// Refusals: forbidden, not_found (agent), chain_broken and invalid_request
// (from the plugin, or a credential imported before), project_mismatch (a
// scope outside the agent's projects).
//
// plugin is looked up only once the person and the agent have been checked,
// so a missing plugin never answers for another organization's agent.
func (s *Service) ImportCredential(ctx context.Context, by, agentID, format, cred string,
	plugin func() (credential.Credential, error)) (*mandate.Mandate, error) {
	var out *mandate.Mandate
	err := s.ident.Act(ctx, by, identity.Approver, "admin.credential.import", map[string]any{"agent_id": agentID, "format": format},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			a, err := s.ident.GetAgent(ctx, tx, agentID, p.OrgID)
			if err != nil {
				return err
			}
			e.AgentID = a.ID
			roots, err := liveRootKeys(ctx, tx, p.OrgID)
			if err != nil {
				return fmt.Errorf("credentials.ImportCredential: %w", err)
			}
			keys, err := liveKeysOf(ctx, tx, a.ID)
			if err != nil {
				return fmt.Errorf("credentials.ImportCredential: %w", err)
			}
			impl, err := plugin()
			if err != nil {
				return err
			}
			imported, err := impl.Import(ctx, credential.ImportRequest{Credential: cred, TrustedRoots: roots, HolderKeys: keys, Now: s.opts.Now()})
			if err != nil {
				return err
			}
			if err := identity.ScopesWithin(imported.Scope, a.Projects); err != nil {
				return err
			}
			issuer, err := liveRootHuman(ctx, tx, p.OrgID, imported.IssuerPrincipal)
			if err != nil {
				return err
			}
			if issuer == "" {
				return errs.E(errs.ChainBroken, "the credential's issuing key is not a trusted root of this organization")
			}
			out, err = s.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: issuer, Holder: a.ID, Scope: imported.Scope,
				Limits: imported.Limits, Delegations: min(imported.MaxDelegations, maxImportedDelegations),
				ExpiresAt: imported.ExpiresAt, Imported: &mandate.Imported{Format: format, ExternalID: imported.ExternalID,
					Credential: []byte(cred), IssuerPrincipal: base64.RawURLEncoding.EncodeToString(imported.IssuerPrincipal)}})
			if db.PgCode(err) == db.UniqueViolation {
				return errs.E(errs.InvalidRequest, "this %s credential (%s) was imported already", format, imported.ExternalID)
			}
			if err != nil {
				return err
			}
			e.MandateChain = []uuid.UUID{out.ID}
			e.Payload = map[string]any{"agent_id": a.ID, "format": format, "external_id": imported.ExternalID,
				"scope": imported.Scope, "mandate_id": out.ID.String()}
			return nil
		})
	return out, wrap(err, "import a %s credential for %s", format, agentID)
}
