package mcpserve

import (
	"net/http"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

const metadataPrefix = "/.well-known/oauth-protected-resource/mcp/a/"

// metadataURL is where the agent URL's protected-resource metadata lives.
func (s *Server) metadataURL(agent string) string {
	return s.opts.PublicURL + metadataPrefix + agent
}

// resourceMetadata is the RFC 9728 document (docs/specs/behavior.md §9.3). The SDK's
// oauthex type drops an empty authorization_servers, which the document
// must show as [].
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

// serveMetadata answers GET (and HEAD) with the document and OPTIONS with
// the CORS preflight; the metadata is public, so any origin may read it.
func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	agent := r.PathValue("agent")
	if !agentID.MatchString(agent) {
		useAgentURL(w, r)
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, MCP-Protocol-Version")
	switch r.Method {
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead:
	default:
		h.Set("Allow", "GET, OPTIONS")
		kernel.WriteError(w, http.StatusMethodNotAllowed, errs.E(errs.InvalidRequest, "the metadata is read with GET"))
		return
	}
	servers := s.opts.AuthorizationServers
	if servers == nil {
		servers = []string{}
	}
	kernel.WriteJSON(w, http.StatusOK, resourceMetadata{
		Resource:               s.opts.PublicURL + "/mcp/a/" + agent,
		AuthorizationServers:   servers,
		ScopesSupported:        []string{"pact"},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "PACT Board",
	})
}
