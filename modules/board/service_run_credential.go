package board

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// neverGranted are the tools no per-run credential may call, whatever it
// asks for: the run's claim, its report and its deferral stay with the
// runner that holds the claim, revoking stays with the agent's own
// credential, and a run cannot mint another run's credential
// (docs/runner.md, "The session on the board").
func neverGranted() []string {
	return []string{"pact_claim", "pact_report", "pact_defer", "pact_revoke", toolRunCredential}
}

// Bounds of a per-run credential's life.
const (
	minRunCredential = time.Second
	maxRunCredential = 24 * time.Hour
)

// RunCredential is an issued per-run credential: Token is handed over
// once; the board keeps only its hash.
type RunCredential struct {
	Token     string
	TaskID    string
	MandateID string
	Tools     []string
	Withheld  []string
	ExpiresAt time.Time
}

// IssueRunCredential issues a credential that acts as by for one run of
// task taskID, which by holds under its chain's claim (the task is one by
// may see, of a project that is not frozen nor, for a Runner, production;
// it is working, by its assignee, and the chain's leaf is the claim's
// mandate or one below it): it may call only the tools asked for that the
// board has and may grant (registered lists the board's tools), each under
// the chain's leaf, and lives until ttl has passed or the task is no
// longer working under this claim. Refusals: claim_lost (not by's working
// task), forbidden (the chain does not descend from the claim's mandate),
// invalid_request (a tool the board does not have, no tool left to grant,
// ttl out of bounds).
func (s *Service) IssueRunCredential(ctx context.Context, tx bun.IDB, by Actor, taskID string,
	asked, registered []string, ttl time.Duration) (RunCredential, error) {
	t, _, err := s.workOn(ctx, tx, by, taskID)
	if err != nil {
		return RunCredential{}, err
	}
	chain := by.Chain
	if t.Status != working || t.Assignee == nil || *t.Assignee != by.AgentID || t.AssigneeMandateID == nil {
		return RunCredential{}, errs.E(errs.ClaimLost, "task %s is not working under your claim; claim it before you start a run", t.ID)
	}
	if !slices.ContainsFunc(chain, func(l *mandate.Mandate) bool { return l.ID.String() == *t.AssigneeMandateID }) {
		return RunCredential{}, errs.Mandate(errs.Forbidden, chain.Leaf().ID.String(),
			"a run's credential acts under the claim's mandate %s or one below it, not under %s", *t.AssigneeMandateID, chain.Leaf().ID)
	}
	if ttl < minRunCredential || ttl > maxRunCredential {
		return RunCredential{}, errs.E(errs.InvalidRequest, "seconds must be between 1 and 86400 (the run's timeout)")
	}
	if len(asked) > 100 {
		return RunCredential{}, errs.E(errs.InvalidRequest, "a run's credential lists at most 100 tools")
	}
	out := RunCredential{TaskID: t.ID, MandateID: chain.Leaf().ID.String()}
	for _, name := range asked {
		switch {
		case !slices.Contains(registered, name):
			return RunCredential{}, errs.E(errs.InvalidRequest, "there is no tool %s on this board; it has %v", name, registered)
		case slices.Contains(neverGranted(), name):
			out.Withheld = appendOnce(out.Withheld, name)
		default:
			out.Tools = appendOnce(out.Tools, name)
		}
	}
	if len(out.Tools) == 0 {
		return RunCredential{}, errs.E(errs.InvalidRequest, "no tool left to grant: a run's credential never calls %v", neverGranted())
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return RunCredential{}, err
	}
	out.Token = kernel.RunTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	expires, ok, err := s.st.insertRunCredential(ctx, tx, identity.HashToken(out.Token), by.AgentID, t.ID, out.MandateID, out.Tools, ttl)
	switch {
	case err != nil:
		return RunCredential{}, wrapf(err, "issue a run credential for %s", t.ID)
	case !ok:
		return RunCredential{}, errs.E(errs.ClaimLost, "task %s is no longer working under your claim", t.ID)
	}
	out.ExpiresAt = expires
	return out, nil
}

// VerifyGrant implements kernel.GrantVerifier: the grant of a live per-run
// credential of agent. Refusal: unauthorized, one message for every cause
// (unknown, another agent's, expired, its run over), so a token reveals
// nothing.
func (s *Service) VerifyGrant(ctx context.Context, agent, token string) (*kernel.Grant, error) {
	row, err := s.st.liveRunCredential(ctx, s.db, identity.HashToken(token), agent)
	switch {
	case err != nil:
		return nil, errs.Wrap(err, "check run credential")
	case row == nil:
		return nil, errs.E(errs.Unauthorized, "invalid or expired run credential: its run is over (reported, released, claimed anew) or timed out")
	}
	return &kernel.Grant{Tools: row.Tools, MandateID: row.MandateID, TaskID: row.TaskID, ExpiresAt: row.ExpiresAt}, nil
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
