package board

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// The Admin API's side of remote A2A agents (docs/a2a.md, "Remote agents"):
// an approver names an a2a-remote agent's card, and the credentials the
// remote agent takes, which are sealed and never shown again.

type remoteIn struct {
	Agent string `path:"agent_id" doc:"An agent of client a2a-remote."`
	Body  struct {
		CardURL       string `json:"card_url" maxLength:"2000" doc:"The remote agent's card (https; http with PACT_A2A_ALLOW_PRIVATE)."`
		Authorization string `json:"authorization,omitempty" maxLength:"4000" doc:"The Authorization header the remote agent takes, e.g. Bearer …; sealed, never shown again. Empty keeps the one set before; - clears it."`
	}
}

// RemoteCard is the card an a2a-remote agent was given, as the board read it.
type RemoteCard struct {
	AgentID      string `json:"agent_id" doc:"The agent."`
	CardURL      string `json:"card_url" doc:"Its card."`
	Name         string `json:"name" doc:"The remote agent's name, from its card."`
	InterfaceURL string `json:"interface_url" doc:"Where the board calls it: the card's JSON-RPC interface of A2A 1.0."`
	Streaming    bool   `json:"streaming" doc:"Whether it streams its tasks' changes (else the board reads them every few seconds)."`
}

type remoteOut struct{ Body RemoteCard }

func (m *Module) registerRemoteAdmin(api huma.API) {
	huma.Register(api, kernel.AdminOp(huma.Operation{OperationID: "board-set-a2a-remote", Method: http.MethodPut,
		Path: "/agents/{agent_id}/a2a-remote", Summary: "Name a remote A2A agent's card and credentials",
		Description: "The board reads the card at once, and refuses one it cannot read or that offers no JSON-RPC " +
			"interface of A2A 1.0. From then on, what is delegated to the agent is sent to the remote agent.",
		Tags: []string{"agents"}, Errors: []int{http.StatusBadRequest, http.StatusNotFound}, MaxBodyBytes: 16 << 10},
		identity.Approver), m.setRemote)
}

func (m *Module) setRemote(ctx context.Context, in *remoteIn) (*remoteOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	// Every refusal is logged as the operation's one entry, so the checks
	// and the card's fetch run inside it; the fetch is bounded, and only
	// an approver's rare call waits on it.
	var card *a2a.AgentCard
	var url string
	err = m.ident.Act(ctx, p.ID, identity.Approver, "admin.agent.a2a_remote", map[string]any{"agent_id": in.Agent, "card_url": in.Body.CardURL},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			// The agent first: the board fetches no card for an agent that
			// has none to take.
			old, err := m.svc.remoteOf(ctx, tx, personActor(p), in.Agent)
			if err != nil {
				return err
			}
			if err := CheckRemoteCard(in.Body.CardURL, m.allowPrivate); err != nil {
				return err
			}
			auth := strings.TrimSpace(in.Body.Authorization)
			if err := checkRemoteAuthorization(auth); err != nil {
				return err
			}
			switch auth {
			case "-":
				auth = ""
			case "": // the one set before, if any
				if auth, err = openRemoteAuth(m.remote.box, old); err != nil {
					return errs.E(errs.InvalidRequest, "the authorization set before no longer opens: give it again")
				}
			}
			fctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			if card, err = a2a.FetchCard(fctx, m.remote.http, in.Body.CardURL, auth); err != nil {
				return errs.E(errs.InvalidRequest, "the board could not read the card at card_url: %v", err)
			}
			var ok bool
			if url, ok = card.JSONRPCURL(); !ok {
				return errs.E(errs.InvalidRequest, "the card at card_url offers no JSON-RPC interface of A2A %s "+
					"(supportedInterfaces with protocolBinding JSONRPC and protocolVersion %s)", a2a.Version, a2a.Version)
			}
			err = m.svc.SetRemote(ctx, tx, personActor(p), m.remote.box, in.Agent,
				RemoteInput{CardURL: in.Body.CardURL, Authorization: in.Body.Authorization}, m.allowPrivate)
			if err == nil {
				e.AgentID = in.Agent
			}
			return err
		})
	if err != nil {
		return nil, err
	}
	return &remoteOut{Body: RemoteCard{AgentID: in.Agent, CardURL: in.Body.CardURL, Name: card.Name, InterfaceURL: url,
		Streaming: card.Capabilities.Streaming}}, nil
}
