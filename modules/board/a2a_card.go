package board

import (
	"context"
	"net/http"
	"strings"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
)

// The agent card (docs/a2a.md, "Agent cards"). The card at the well-known
// URL is public, as discovery needs, and the same for any agent id: it
// says how to call and authenticate, and nothing of the agent, so it tells
// no one which agents exist. The extended card (GetExtendedAgentCard),
// for the agent itself, names what its mandate lets it do in each project.

func (m *Module) serveA2ACard(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "GET, OPTIONS")
		writeA2A(w, http.StatusMethodNotAllowed, a2a.Failure(nil, a2a.Errorf(a2a.CodeInvalidRequest, "the agent card is read with GET")))
		return
	}
	card, _ := m.a2aCard(r.Context(), r.PathValue("agent"), nil)
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "public, max-age=300")
	kernel.WriteJSON(w, http.StatusOK, card)
}

// a2aCard is agent's card: the public one for c nil, the extended one for
// the agent itself.
func (m *Module) a2aCard(ctx context.Context, agent string, c *a2aCaller) (a2a.AgentCard, error) {
	url := m.publicURL + "/a2a/a/" + agent
	card := a2a.AgentCard{
		Name: "PACT Board agent " + agent,
		Description: "An agent's door to a PACT Board: post tasks for the agents of its projects, follow them to the " +
			"end, answer what they ask and cancel what is no longer needed, all under the agent's mandate.",
		SupportedInterfaces: []a2a.AgentInterface{{URL: url, ProtocolBinding: "JSONRPC", ProtocolVersion: a2a.Version}},
		Provider:            &a2a.AgentProvider{URL: m.publicURL, Organization: "PACT Board"},
		Version:             "1",
		DocumentationURL:    m.publicURL + "/docs/a2a.md",
		Capabilities:        a2a.AgentCapabilities{Streaming: true, PushNotifications: m.push.served(), ExtendedAgentCard: true},
		SecuritySchemes: map[string]a2a.SecurityScheme{"agentToken": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{
			Scheme: "Bearer", BearerFormat: "pact_ agent token",
			Description: "The agent's own token, as registering it or pact-connect gave it."}}},
		SecurityRequirements: []a2a.SecurityRequirement{{Schemes: map[string]a2a.StringList{"agentToken": {List: []string{}}}}},
		DefaultInputModes:    []string{"text/plain", "application/json"},
		DefaultOutputModes:   []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{ID: "post-task", Name: "Post a task",
			Description: "Send a message without a task: its first line is the task's title, the whole the task's body; " +
				"the message's contextId names the project. metadata.delegateTo hands it to an agent.",
			Tags: []string{"tasks"}, Examples: []string{"Fix the flaky login test\n\nIt fails one run in ten on CI."}}},
	}
	if c == nil {
		return card, nil
	}
	root, err := m.mandates.Get(ctx, m.db, c.root)
	if err != nil {
		return a2a.AgentCard{}, err
	}
	card.Name = agent
	if card.Capabilities.PushNotifications {
		ext, err := m.pushExtension(ctx, c)
		if err != nil {
			return a2a.AgentCard{}, err
		}
		card.Capabilities.Extensions = append(card.Capabilities.Extensions, ext)
	}
	card.Skills = nil
	for _, p := range c.projects {
		var can []string
		for _, action := range []string{"task.post", "task.read"} {
			if mandate.AnyCovers(root.Scope, mandate.BoardScope(action, p)) {
				can = append(can, action)
			}
		}
		if len(can) == 0 {
			continue
		}
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: "project-" + p, Name: "Work in project " + p,
			Description: "In project " + p + " this agent's mandate allows " + strings.Join(can, " and ") +
				": post tasks there (contextId " + p + "), follow them and message on them.",
			Tags: append([]string{"project:" + p}, can...)})
	}
	if card.Skills == nil {
		card.Skills = []a2a.AgentSkill{}
	}
	return card, nil
}

// pushExtension hands the agent, in its extended card only, the key that
// signs its push notifications per Standard Webhooks (docs/a2a.md, "Push
// notifications"); it is made on first need.
func (m *Module) pushExtension(ctx context.Context, c *a2aCaller) (a2a.AgentExtension, error) {
	key, err := m.push.signingKey(ctx, c.agent, c.org)
	if err != nil {
		return a2a.AgentExtension{}, err
	}
	return a2a.AgentExtension{URI: PushSignaturesURI, Params: map[string]any{"secret": key},
		Description: "Every push notification of this agent's configs carries Standard Webhooks headers (webhook-id, " +
			"webhook-timestamp, webhook-signature: v1, HMAC-SHA256 of id.timestamp.body) signed with params.secret, " +
			"beside the authentication the config names."}, nil
}
