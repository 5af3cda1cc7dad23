package people

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// POST /connect is the endpoint an agent's machine calls beside MCP, as
// Claude Code's hooks are: pact-connect trades its setup code here once
// (docs/pact-connect.md). It translates; the service redeems.

// maxConnectBody bounds a POST /connect body.
const maxConnectBody = 4096

// Connected is what POST /connect answers, once per setup code.
type Connected struct {
	AgentID      string            `json:"agent_id"`
	Client       string            `json:"client"`
	Project      string            `json:"project"`
	BoardURL     string            `json:"board_url"`
	MCPURL       string            `json:"mcp_url"`
	Token        string            `json:"token"`
	Role         *string           `json:"role"`
	Settings     map[string]string `json:"settings"`
	Instructions string            `json:"instructions"`
}

// serveConnect redeems a setup code (docs/specs/behavior.md §10.3). It takes no
// authentication: the code is the credential.
func (m *Module) serveConnect(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	raw, err := readAtMost(r, maxConnectBody)
	switch {
	case kernel.IsReadTimeout(err):
		kernel.WriteError(w, http.StatusRequestTimeout, errs.E(errs.InvalidRequest,
			"the body did not arrive within %s; send it whole with the request", kernel.MaxRequestRead))
		return
	case err != nil:
		kernel.WriteError(w, http.StatusRequestEntityTooLarge, errs.E(errs.InvalidRequest,
			"the body is at most %d bytes: send {\"code\": \"pcs_...\"}", maxConnectBody))
		return
	}
	var body struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(raw, &body) != nil || !strings.HasPrefix(body.Code, SetupCodePrefix) {
		kernel.WriteError(w, http.StatusBadRequest, errs.E(errs.InvalidRequest, `send {"code": "pcs_..."}`))
		return
	}
	if err := kernel.RefuseNUL(body.Code, "code"); err != nil {
		e, _ := errs.As(err)
		kernel.WriteError(w, http.StatusBadRequest, e)
		return
	}
	red, err := m.svc.RedeemSetupCode(r.Context(), body.Code)
	if err != nil {
		if e, ok := errs.As(err); ok && e.Code == errs.Forbidden {
			kernel.WriteError(w, http.StatusForbidden, e)
			return
		}
		p := kernel.Public(err) // the database down is 503 unavailable
		kernel.WriteError(w, kernel.AdminStatus(p.Code), p)
		return
	}
	base := m.cfg.BoardURL
	kernel.WriteJSON(w, http.StatusOK, Connected{AgentID: red.AgentID, Client: red.Client, Project: red.Project,
		BoardURL: base, MCPURL: base + "/mcp/a/" + red.AgentID, Token: red.Token, Role: red.Role,
		Settings: red.Settings, Instructions: red.Instructions})
}

var errTooLarge = errors.New("body too large")

// readAtMost reads r's body, refusing one longer than n bytes; a body that
// failed to arrive returns the read's error.
func readAtMost(r *http.Request, n int64) ([]byte, error) {
	if r.ContentLength > n {
		return nil, errTooLarge
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, n+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > n {
		return nil, errTooLarge
	}
	return raw, nil
}
