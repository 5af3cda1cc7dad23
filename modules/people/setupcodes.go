package people

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// SetupCodePrefix starts every setup code.
const SetupCodePrefix = "pcs_"

// SetupCodeTTL is how long a setup code can be redeemed.
const SetupCodeTTL = 15 * time.Minute

// RedeemRefused is the one answer to a setup code that cannot be redeemed,
// whatever the reason.
const RedeemRefused = "this setup code is unknown, used or expired; get a new one in the Admin UI"

// connect is how agent (of client) connects; for a token client it mints
// a setup code, created by person by, of which only the hash is kept. A
// remote A2A agent connects to nothing: the board calls it, once a person
// names its card (docs/a2a.md, "Remote agents").
func (s *Service) connect(ctx context.Context, tx bun.IDB, by, agent, client string) (*Connect, error) {
	switch {
	case oauthClients[client]:
		return &Connect{Kind: "oauth", URL: s.boardURL + "/mcp/a/" + agent}, nil
	case client == remoteClient:
		return &Connect{Kind: "remote_card", URL: s.boardURL + "/admin/api/agents/" + agent + "/a2a-remote"}, nil
	}
	b := make([]byte, 18)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return nil, err
	}
	code := SetupCodePrefix + base64.RawURLEncoding.EncodeToString(b)
	ends := s.ident.Now().Add(SetupCodeTTL).UTC().Truncate(time.Microsecond)
	if err := insertSetupCode(ctx, tx, identity.HashToken(code), agent, by, s.ident.Now().UTC(), ends); err != nil {
		return nil, err
	}
	return &Connect{Kind: "setup_code", Code: code, ExpiresAt: &ends, Command: "pact-connect " + s.boardURL + " " + code}, nil
}

// NewSetupCode gives an agent of the acting approver's organization new
// connect information: a fresh setup code for a token client (earlier
// unused codes stay valid until they expire), the connector for the rest.
// Refusals: forbidden, not_found (missing, another organization's or
// banned).
func (s *Service) NewSetupCode(ctx context.Context, by, agent string) (*Connect, error) {
	var out *Connect
	err := s.ident.Act(ctx, by, identity.Approver, "admin.agent.setup_code", map[string]any{"agent_id": agent},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			a, err := s.ident.GetAgent(ctx, tx, agent, p.OrgID)
			if err == nil && a.Status == "banned" {
				err = errs.E(errs.NotFound, "agent %s does not exist", agent)
			}
			if err != nil {
				return err
			}
			e.AgentID = agent
			out, err = s.connect(ctx, tx, p.ID, agent, a.Client)
			return err
		})
	return out, err
}

// Redeemed is what a setup code trades for, once.
type Redeemed struct {
	AgentID      string            `json:"agent_id"`
	Client       string            `json:"client"`
	Project      string            `json:"project"`
	Token        string            `json:"token"`
	Role         *string           `json:"role"`
	Settings     map[string]string `json:"settings"`
	Instructions string            `json:"instructions"`
}

// RedeemSetupCode trades a setup code for a new token of its agent, once;
// the code is the credential. The token lasts the role's token term (30 days
// without a role). It is logged as admin.agent.connect by the code's
// creator. Refusal: forbidden RedeemRefused for a code that is unknown,
// used, expired or whose agent is banned. A refused code the board knows
// (used, expired, banned agent) is logged in its organization as a refused
// admin.agent.connect by that agent, with the reason: a used code presented
// again means it leaked. An unknown code names no organization to log in.
func (s *Service) RedeemSetupCode(ctx context.Context, code string) (*Redeemed, error) {
	refused := errs.E(errs.Forbidden, "%s", RedeemRefused)
	if !strings.HasPrefix(code, SetupCodePrefix) {
		return nil, refused
	}
	out, err := s.redeem(ctx, code, refused)
	if errors.Is(err, refused) {
		return nil, s.logRefusedRedemption(ctx, code, refused)
	}
	return out, err
}

// logRefusedRedemption records the refusal of a known code; refused is
// returned either way.
func (s *Service) logRefusedRedemption(ctx context.Context, code string, refused error) error {
	r, err := codeByHash(ctx, s.db, identity.HashToken(code))
	if err != nil {
		return err
	}
	if r == nil {
		return refused
	}
	a, err := s.ident.GetAgent(ctx, s.db, r.AgentID, "")
	if err != nil {
		return fmt.Errorf("look up the agent of a refused setup code: %w", err)
	}
	reason := "refused" // only when another redemption is committing
	switch {
	case r.UsedAt != nil:
		reason = "used"
	case !r.Expires.After(s.ident.Now()):
		reason = "expired"
	case a.Status == "banned":
		reason = "banned"
	}
	return s.log.RecordRefusal(ctx, s.db, ledger.Entry{OrgID: a.OrgID, AgentID: r.AgentID, Actor: "agent:" + r.AgentID,
		Action: "admin.agent.connect", Payload: map[string]any{"agent_id": r.AgentID, "reason": reason,
			"code_created_by": r.Creator, "code_created_at": r.Received}}, refused)
}

// redeem is RedeemSetupCode's transaction; it returns refused itself for
// a code it cannot redeem.
func (s *Service) redeem(ctx context.Context, code string, refused error) (*Redeemed, error) {
	var out *Redeemed
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		used, err := useCode(ctx, tx, identity.HashToken(code), s.ident.Now())
		if err != nil {
			return err
		}
		if used == nil {
			return refused
		}
		a, err := s.ident.GetAgent(ctx, tx, used.AgentID, "")
		if err != nil {
			return err
		}
		if a.Status == "banned" {
			return refused
		}
		days := 30.0
		out = &Redeemed{AgentID: a.ID, Client: a.Client, Role: a.RoleID, Settings: map[string]string{}}
		if len(a.Projects) > 0 {
			out.Project = a.Projects[0]
		}
		if a.RoleID != nil {
			r, err := getRole(ctx, tx, a.OrgID, *a.RoleID)
			if err != nil {
				return err
			}
			days, out.Instructions = r.TokenDays, r.Instructions
			// The one place secret settings leave the board in clear: to
			// the agent hired from the role, redeeming its code (SEC-006).
			settings, err := openSettings(s.seal, a.OrgID, r.ID, r.Settings)
			if err != nil {
				return err
			}
			for k, v := range settings {
				out.Settings[k] = strings.ReplaceAll(v, "{project}", out.Project)
			}
		}
		ends, err := s.ident.Term("the token term", days)
		if err != nil {
			return err
		}
		if out.Token, err = s.newToken(ctx, tx, a.ID, ends); err != nil {
			return err
		}
		_, err = s.log.Append(ctx, tx, ledger.Entry{OrgID: a.OrgID, AgentID: a.ID, Actor: "human:" + used.CreatedBy,
			Action: "admin.agent.connect", Payload: map[string]any{"agent_id": a.ID, "token_expires_at": ends},
			Outcome: ledger.OK})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetupCodeState is the latest setup code of an agent, without the code.
type SetupCodeState struct {
	CreatedAt time.Time  `bun:"created_at" json:"created_at"`
	ExpiresAt time.Time  `bun:"expires_at" json:"expires_at"`
	UsedAt    *time.Time `bun:"used_at" json:"used_at"`
}

// Connection is whether a hired agent has connected.
type Connection struct {
	AgentID string `json:"agent_id"`
	// State is connected (seen since its code was used, or since it was
	// hired when it has no code), code_redeemed (code used, not seen
	// since), expired (its latest code expired unused) or waiting_for_code.
	State      string          `json:"state"`
	SetupCode  *SetupCodeState `json:"setup_code"`
	LiveTokens int             `json:"live_tokens"`
	LastSeen   *time.Time      `json:"last_seen"`
	HiredAt    time.Time       `json:"hired_at"`
}

// GetConnection reports the connection state of agent id of person p's
// organization. Refusal: not_found.
func (s *Service) GetConnection(ctx context.Context, p *identity.Person, id string) (*Connection, error) {
	a, err := s.ident.GetAgent(ctx, s.db, id, p.OrgID)
	if err != nil {
		return nil, err
	}
	out := &Connection{AgentID: id, LastSeen: a.LastSeen, HiredAt: a.CreatedAt}
	code, err := latestCode(ctx, s.db, id)
	if err != nil {
		return nil, err
	}
	if out.LiveTokens, err = s.ident.LiveTokenCount(ctx, s.db, id); err != nil {
		return nil, fmt.Errorf("people.GetConnection: %w", err)
	}
	seenAfter := func(t time.Time) bool { return a.LastSeen != nil && a.LastSeen.After(t) }
	switch {
	case code == nil && seenAfter(a.CreatedAt):
		out.State = "connected"
	case code == nil:
		out.State = "waiting_for_code"
	case code.UsedAt != nil && seenAfter(*code.UsedAt):
		out.State = "connected"
	case code.UsedAt != nil:
		out.State = "code_redeemed"
	case !code.ExpiresAt.After(s.ident.Now()):
		out.State = "expired"
	default:
		out.State = "waiting_for_code"
	}
	out.SetupCode = code
	return out, nil
}
