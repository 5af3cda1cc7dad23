package mcpserve

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// A tools/call's agent token is checked in the call's first round trip,
// inside the gate's statement, instead of in an exchange of its own before
// the SDK sees the request (kernel.WithAgentToken; docs/benchmarks.md,
// "Round trips"). The request is then served with the token unchecked, and
// three things keep that safe:
//
//   - only a request peek read as one tools/call of a tool without a Wait
//     phase, with an agent token (not a per-run credential) and the board's
//     own token check, goes this way; every other request is
//     authenticated first, as before;
//   - the SDK's own reading of the request decides: checkUnchecked
//     checks the token apart before any method other than that tools/call
//     of that tool runs, so a body read one way by peek and another by the
//     SDK gains nothing;
//   - no answer leaves with the token unchecked (uncheckedWriter): a token
//     the call refused, or one checked apart when the SDK answered on its
//     own (a request it rejects), gets the 401 (with its challenge) a
//     token refused before would have had, and nothing ran or was logged.

// checkedInCall returns the bearer token of r when its check can wait for
// the call's gate.
func (s *Server) checkedInCall(r *http.Request, p peeked) (string, bool) {
	token, ok := bearer(r)
	waits, known := s.waits[p.tool]
	switch {
	case !ok, p.method != "tools/call", !known, waits,
		s.opts.Auth != nil, !s.opts.Tools.ChecksAgentTokens(),
		!strings.HasPrefix(token, identity.TokenPrefix), strings.HasPrefix(token, kernel.RunTokenPrefix):
		return "", false
	}
	return token, true
}

// serveUnchecked serves a request whose token the call checks, answering
// as authenticate would instead of the SDK's answer when the token is not
// the agent's.
func (s *Server) serveUnchecked(w http.ResponseWriter, r *http.Request, h http.Handler, c *caller) {
	uw := &uncheckedWriter{ResponseWriter: w, answered: func(w http.ResponseWriter) bool {
		switch {
		case c.tokenRefused.Load():
			s.challenge(w, c.agent, true, "invalid or expired agent token")
			return true
		case c.tokenChecked.Load():
			return false
		}
		_, ok := s.authenticate(w, r, c.agent) // the SDK answered without the call
		return !ok
	}}
	h.ServeHTTP(uw, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

// checkUnchecked is the SDK middleware that holds an unchecked token to
// the one call it was left unchecked for: any other method, or a call of
// another tool than the one peek read, has its token checked apart first.
func (s *Server) checkUnchecked(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		c, ok := callerFrom(ctx)
		if !ok || c.unchecked == "" {
			return next(ctx, method, req)
		}
		if p, isCall := req.GetParams().(*mcp.CallToolParamsRaw); isCall && method == "tools/call" && p.Name == c.tool {
			return next(ctx, method, req)
		}
		err := s.authenticator().Authenticate(ctx, c.agent, c.unchecked)
		if e, refused := errs.As(err); refused && e.Code == errs.Unauthorized {
			c.tokenRefused.Store(true)
			return nil, errors.New("invalid or expired agent token")
		} else if err != nil {
			return nil, err
		}
		c.tokenChecked.Store(true)
		c.unchecked = ""
		return next(ctx, method, req)
	}
}

// uncheckedWriter holds the SDK's answer to a request whose token was left
// unchecked until answered says whether the token stands: it does not
// when answered has written the refusal instead (the SDK writes its answer
// after the call returns).
type uncheckedWriter struct {
	http.ResponseWriter
	answered  func(http.ResponseWriter) bool
	decided   bool
	swallowed bool
}

func (w *uncheckedWriter) WriteHeader(code int) {
	if w.decided {
		return
	}
	w.decided = true
	if w.answered(w.ResponseWriter) {
		w.swallowed = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *uncheckedWriter) Write(b []byte) (int, error) {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallowed {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *uncheckedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
