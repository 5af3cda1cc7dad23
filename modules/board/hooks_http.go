package board

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// Claude Code hooks (docs/hooks.md, docs/specs/behavior.md §9.4–9.6):
// POST /hooks/a/<agent>/<event>, the hook's JSON as the body, the agent's
// own pact_ token as the bearer. The script hooks/pact-hook.sh sends them.

// hookEvents are the events a hook may name, in the order the refusal
// lists them.
var hookEvents = []string{"post-tool-use", "stop", "session-start", "user-prompt-submit"}

// maxHookBody bounds a hook's body: Claude Code sends the tool's input
// (an Edit's old and new text) in it.
const maxHookBody = 1_000_000

// hookCall is one hook request, authenticated and read.
type hookCall struct {
	agent, event, session string
	hook                  map[string]any
	header                http.Header
}

func (m *Module) serveHook(w http.ResponseWriter, r *http.Request) {
	agent, event := r.PathValue("agent"), r.PathValue("event")
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeHook(w, http.StatusMethodNotAllowed, errs.E(errs.MethodNotAllowed, "hooks are sent with POST"))
		return
	}
	if !slices.Contains(hookEvents, event) {
		writeHook(w, http.StatusNotFound, errs.E(errs.NotFound, "there is no hook event %q; the events are %s",
			event, strings.Join(hookEvents, ", ")))
		return
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	ok := false
	if strings.HasPrefix(token, identity.TokenPrefix) {
		var err error
		if ok, err = m.svc.AuthenticateHook(r.Context(), agent, token); err != nil {
			m.logger.Error("hook: check agent token", "agent", agent, "error", err)
			writeHook(w, http.StatusServiceUnavailable, errs.E(errs.Unavailable, "the board cannot check tokens now; try again"))
			return
		}
	}
	if !ok {
		writeHook(w, http.StatusUnauthorized, errs.E(errs.Unauthorized, "hooks need a live agent token for this agent"))
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeHook(w, http.StatusRequestEntityTooLarge, errs.E(errs.TooLarge, "a hook's body is at most %d bytes", maxHookBody))
		return
	case err != nil:
		writeHook(w, http.StatusBadRequest, errs.E(errs.InvalidRequest, "the body could not be read: %v", err))
		return
	}
	c := hookCall{agent: agent, event: event, header: r.Header}
	if json.Unmarshal(raw, &c.hook) != nil || c.hook == nil {
		writeHook(w, http.StatusBadRequest, errs.E(errs.InvalidRequest, "the body must be the hook's JSON object (what Claude Code writes on the hook's stdin)"))
		return
	}
	// The session id is kept as text; what a tool did (post-tool-use) is
	// Claude Code's record, kept in the log with any NUL replaced.
	if err := kernel.RefuseNUL(c.hook["session_id"], "session_id"); err != nil {
		e, _ := errs.As(err)
		writeHook(w, http.StatusBadRequest, e)
		return
	}
	c.session, _ = c.hook["session_id"].(string)
	if event != "post-tool-use" && (c.session == "" || len(c.session) > 200) {
		writeHook(w, http.StatusBadRequest, errs.E(errs.InvalidRequest, "%s needs the hook's session_id (1-200 characters)", event))
		return
	}
	answer, err := m.answerHook(r.Context(), c)
	if err != nil {
		m.logger.Error("hook", "agent", agent, "event", event, "error", err)
		p := kernel.Public(err) // the database down is 503 unavailable
		writeHook(w, kernel.AdminStatus(p.Code), p)
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

// writeHook answers a refused hook request.
func writeHook(w http.ResponseWriter, status int, e *errs.Error) {
	writeJSON(w, status, map[string]any{"error": e.Code, "message": e.Message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
