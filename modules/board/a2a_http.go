package board

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// The A2A endpoint (docs/a2a.md): an agent of client a2a works the board
// over A2A 1.0's JSON-RPC binding at /a2a/a/<agent>, its card beside it.
// Every method is one or more of the board's own tool calls made as the
// agent (m.tools.Call), so the gate, the mandate's verification, the one
// transaction and the log entry are a tool call's. These files decide
// nothing of the board's: they read requests, call tools and write
// answers.

const (
	a2aRoute     = "/a2a/a/{agent}"
	a2aCardRoute = "/a2a/a/{agent}/.well-known/agent-card.json"
	// maxA2ABody bounds a request: a message's text becomes a task's body,
	// which holds at most 100,000 characters (tasklimits.go).
	maxA2ABody = 1 << 20
)

// a2aCaller is the agent an A2A request authenticated as.
type a2aCaller struct {
	agent, org, root string
	projects         []string
}

func (m *Module) serveA2A(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeA2A(w, http.StatusMethodNotAllowed, a2a.Failure(nil,
			a2a.Errorf(a2a.CodeInvalidRequest, "A2A requests are JSON-RPC 2.0, sent with POST")))
		return
	}
	c, status, refusal := m.a2aAuthenticate(r.Context(), r.PathValue("agent"), r.Header.Get("Authorization"))
	if refusal != nil {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="PACT Board A2A"`)
		}
		writeA2A(w, status, a2a.Failure(nil, refusal))
		return
	}
	if v := r.Header.Get("A2A-Version"); !a2aVersionServed(v) {
		if v == "" {
			v = "0.3 (no A2A-Version header)"
		}
		writeA2A(w, http.StatusOK, a2a.Failure(nil, a2a.Errorf(a2a.CodeVersionNotSupported,
			"this board speaks A2A %s, not %s: send the header A2A-Version: %s", a2a.Version, v, a2a.Version)))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxA2ABody+1))
	if err != nil {
		return // the client went away
	}
	if len(body) > maxA2ABody {
		writeA2A(w, http.StatusRequestEntityTooLarge, a2a.Failure(nil, a2a.Errorf(a2a.CodeInvalidRequest,
			"the request is over the board's limit of %d bytes; a task's body holds at most %d characters", maxA2ABody, MaxTaskBody)))
		return
	}
	req, perr := a2a.ParseRequest(body)
	if perr != nil {
		writeA2A(w, http.StatusOK, a2a.Failure(req.ID, perr))
		return
	}
	var params any
	if json.Unmarshal(req.Params, &params) == nil {
		if err := kernel.RefuseNUL(params, "params"); err != nil {
			writeA2A(w, http.StatusOK, a2a.Failure(req.ID, m.a2aError(c, req.Method, err)))
			return
		}
	}
	switch req.Method {
	case a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask:
		m.a2aStream(w, r, c, req)
		return
	}
	result, err := m.a2aDispatch(r.Context(), c, req)
	if err != nil {
		writeA2A(w, http.StatusOK, a2a.Failure(req.ID, m.a2aError(c, req.Method, err)))
		return
	}
	writeA2A(w, http.StatusOK, a2a.Result(req.ID, result))
}

// a2aDispatch answers a method that is not a stream.
func (m *Module) a2aDispatch(ctx context.Context, c *a2aCaller, req a2a.Request) (any, error) {
	switch req.Method {
	case a2a.MethodSendMessage:
		return m.a2aSend(ctx, c, req.Params)
	case a2a.MethodGetTask:
		return m.a2aGetTask(ctx, c, req.Params)
	case a2a.MethodCancelTask:
		return m.a2aCancelTask(ctx, c, req.Params)
	case a2a.MethodGetExtendedAgentCard:
		return m.a2aCard(ctx, c.agent, c)
	case a2a.MethodCreatePushConfig, a2a.MethodGetPushConfig, a2a.MethodListPushConfigs, a2a.MethodDeletePushConfig:
		return m.a2aPushMethod(ctx, c, req)
	case a2a.MethodListTasks:
		return nil, a2a.Errorf(a2a.CodeUnsupportedOperation,
			"ListTasks is not served yet: read each task with GetTask")
	}
	return nil, a2a.Errorf(a2a.CodeMethodNotFound, "there is no method %q; the methods are SendMessage, "+
		"SendStreamingMessage, GetTask, CancelTask, SubscribeToTask, GetExtendedAgentCard and the four "+
		"TaskPushNotificationConfig methods", req.Method)
}

// a2aVersionServed reports whether an A2A-Version header names 1.0 (its
// patch ignored, docs/specs/a2a.md, "Versioning").
func a2aVersionServed(v string) bool {
	v = strings.TrimSpace(v)
	return v == a2a.Version || strings.HasPrefix(v, a2a.Version+".")
}

// a2aAuthenticate is the agent behind an A2A request: a live token of an
// agent of client a2a. Refusals, with their HTTP status: 401 (no token,
// or not a live one of this agent), 404 (an agent of another client:
// told where it connects, only once its own token proved who asks).
func (m *Module) a2aAuthenticate(ctx context.Context, agent, authorization string) (*a2aCaller, int, *a2a.Error) {
	token, _ := strings.CutPrefix(authorization, "Bearer ")
	unauthorized := a2a.Errorf(a2a.CodeRefused, "A2A calls need this agent's live token as a bearer token").
		WithReason(a2a.ErrorDomain, string(errs.Unauthorized), nil)
	if !strings.HasPrefix(token, identity.TokenPrefix) {
		return nil, http.StatusUnauthorized, unauthorized
	}
	ok, err := m.svc.AuthenticateHook(ctx, agent, token)
	if err != nil {
		m.logger.Error("a2a: check agent token", "agent", agent, "error", err)
		return nil, http.StatusServiceUnavailable, a2a.Errorf(a2a.CodeInternal, "the board cannot check tokens now; try again")
	}
	if !ok {
		return nil, http.StatusUnauthorized, unauthorized
	}
	a, err := m.ident.GetAgent(ctx, m.db, agent, "")
	if err != nil || a == nil || a.RootMandateID == nil {
		if err != nil {
			m.logger.Error("a2a: read agent", "agent", agent, "error", err)
		}
		return nil, http.StatusServiceUnavailable, a2a.Errorf(a2a.CodeInternal, "the board cannot read agent %s now; try again", agent)
	}
	if a.Client == "a2a-remote" {
		return nil, http.StatusNotFound, a2a.Errorf(a2a.CodeRefused,
			"agent %s is a remote A2A agent the board drives (docs/a2a.md, Remote agents): it has no endpoint here", agent).
			WithReason(a2a.ErrorDomain, string(errs.NotFound), nil)
	}
	if a.Client != "a2a" {
		return nil, http.StatusNotFound, a2a.Errorf(a2a.CodeRefused,
			"agent %s is a %s agent, not an A2A one: it connects over MCP at /mcp/a/%s", agent, a.Client, agent).
			WithReason(a2a.ErrorDomain, string(errs.NotFound), nil)
	}
	return &a2aCaller{agent: agent, org: a.OrgID, root: a.RootMandateID.String(), projects: a.Projects}, 0, nil
}

// a2aError translates an error of the board into A2A's, once (docs/a2a.md,
// "Errors"): a task the agent cannot see is TaskNotFound, a bad argument
// InvalidParams, any other refusal the board's own code -32000 with the
// board's error code as its reason; anything else is logged and
// InternalError.
func (m *Module) a2aError(c *a2aCaller, method string, err error) *a2a.Error {
	var ae *a2a.Error
	if errors.As(err, &ae) {
		return ae
	}
	e, ok := errs.As(err)
	if !ok || !errs.IsRefusal(err) {
		m.logger.Error("a2a: call failed", "agent", c.agent, "method", method, "error", err)
		return a2a.Errorf(a2a.CodeInternal, "the board failed to answer %s; try again", method)
	}
	switch e.Code {
	case errs.NotFound:
		return a2a.Errorf(a2a.CodeTaskNotFound, "%s", e.Message).WithReason(a2a.ErrorDomain, string(e.Code), nil)
	case errs.InvalidRequest:
		return a2a.Errorf(a2a.CodeInvalidParams, "%s", e.Message).WithReason(a2a.ErrorDomain, string(e.Code), nil)
	}
	var meta map[string]string
	if e.MandateID != "" {
		meta = map[string]string{"mandateId": e.MandateID}
	}
	return a2a.Errorf(a2a.CodeRefused, "%s", e.Message).WithReason(a2a.ErrorDomain, string(e.Code), meta)
}

func writeA2A(w http.ResponseWriter, status int, r a2a.Response) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(r)
}
