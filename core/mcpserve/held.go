package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"sync"

	"github.com/pactboard/pact/core/kernel"
)

// A call of a tool with a Wait phase (pact_wait, pact_events) may be held
// for 50 s, by thousands of agents at once. Where it waits decides what it
// costs: inside the SDK, a held call keeps two goroutines of the SDK's own
// (its JSON-RPC reader and the tool's handler, 16 kB of stack for the
// handler alone), its per-request session and its decoded request, besides
// net/http's connection. So such a call is served in two passes through
// the SDK, which stays the one judge of every request and the one writer of
// every answer (docs/benchmarks.md, "Held pact_events calls"):
//
//  1. The SDK serves the request with a kernel.Holder in its context. The
//     call checks the agent, prepares its wait and checks once, exactly as
//     it would in one pass; if it must block, the Holder takes the wait and
//     the SDK's answer for this pass is discarded. Anything else (a
//     request the SDK rejects, a refusal, work found at once) is answered
//     by this pass, as it would have been.
//  2. The wait runs parked, off net/http, where the server takes
//     connections back (park.go); otherwise here, on the HTTP request's
//     goroutine, which is then all the call keeps. When it ends, the SDK
//     serves the same request again with kernel.Waited: the call goes
//     straight to its transaction.
//
// When the client goes away during the wait, there is no second pass, as
// there would be nothing to answer.

// maxPeekedBody bounds the body peek reads: a tool call is a few hundred
// bytes, and a larger body goes to the SDK as it came.
const maxPeekedBody = 64 << 10

// peeked is what peek read of a request before the SDK reads it.
type peeked struct {
	body   []byte // nil when the request was not read (too large, not a POST)
	method string // the JSON-RPC method of a single request
	tool   string // the tool a tools/call names
}

// peek reads the body of a POST (up to maxPeekedBody), as the SDK would,
// and replaces r.Body so the SDK reads the same bytes, then the rest or the
// same error. It tells the JSON-RPC method and the tool it calls. What it
// tells only chooses a path: where a wait happens (serveHeld), or whether
// the token is checked in the call (calltoken.go), which the SDK's own
// reading of the request confirms; the SDK still judges the request.
func peek(r *http.Request) peeked {
	if r.Method != http.MethodPost || r.Body == nil {
		return peeked{}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPeekedBody+1))
	var rest io.Reader = errReader{err}
	if len(body) > maxPeekedBody {
		rest = r.Body
	}
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), rest), r.Body}
	if err != nil || len(body) > maxPeekedBody {
		return peeked{}
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return peeked{body: body}
	}
	return peeked{body: body, method: msg.Method, tool: msg.Params.Name}
}

// held reports whether p is a tools/call of a tool with a Wait phase.
func (s *Server) held(p peeked) bool {
	return p.method == "tools/call" && s.waits[p.tool]
}

// readCloser reads the body peek replayed and closes the original.
type readCloser struct {
	io.Reader
	io.Closer
}

// errReader returns err, or io.EOF for a body read to its end.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

// serveHeld serves a call peek found held, in the two passes above. The
// wait parks this goroutine 2.7 kB deep, which keeps it an 8 kB stack; from
// 3.3 kB deep it would keep 16 kB: keep serveHeld's frame small. Each
// pass waits for one of s.passes' slots, so that when thousands of agents
// call at once (all reconnecting after a restart, or all woken by one
// task) the calls queue here, where they cost little, rather than inside
// the SDK for the database; and they queue in the order they came.
func (s *Server) serveHeld(w http.ResponseWriter, r *http.Request, h http.Handler, c *caller, body []byte, tool string) {
	if s.park(w, r, h, c, body, tool) {
		return
	}
	if !s.enter(r.Context(), c, tool) {
		return
	}
	holder := s.firstPass(w, r, h, c, body)
	<-s.passes
	if holder == nil {
		return
	}
	err := holder.Run(r.Context()) // ends early when the board drains
	if !s.enter(r.Context(), c, tool) {
		return
	}
	defer func() { <-s.passes }()
	pass(kernel.Waited(context.WithValue(r.Context(), callerKey{}, c), tool, err), w, r, h, body)
}

// enter takes a slot for a pass, unless the client has gone away or goes
// away first: then there is nothing to answer, as when a call is abandoned
// inside the SDK.
func (s *Server) enter(ctx context.Context, c *caller, tool string) bool {
	if ctx.Err() == nil {
		select {
		case s.passes <- struct{}{}:
			return true
		case <-ctx.Done():
		}
	}
	s.opts.Logger.Debug("tool call abandoned by its client", "agent", c.agent, "tool", tool, "error", ctx.Err())
	return false
}

// firstPass serves the request with a Holder and returns it when it took a
// wait; otherwise (nil) the request has been answered.
func (s *Server) firstPass(w http.ResponseWriter, r *http.Request, h http.Handler, c *caller, body []byte) *kernel.Holder {
	holder := &kernel.Holder{}
	hw := &holdWriter{w: w, holder: holder, header: http.Header{}}
	pass(kernel.WithHolder(context.WithValue(r.Context(), callerKey{}, c), holder), hw, r, h, body)
	_, wait := holder.Held()
	if wait == nil {
		hw.commit() // the headers of an answer with no body
		return nil
	}
	return holder
}

// pass has the SDK serve r again, with ctx and the body already read.
func pass(ctx context.Context, w http.ResponseWriter, r *http.Request, h http.Handler, body []byte) {
	r = r.WithContext(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.ServeHTTP(w, r)
}

// holdWriter is the first pass's ResponseWriter: it passes the SDK's
// answer through unless the call's wait was held, and then drops it. The
// SDK writes nothing before the call returns, so nothing has gone out by
// the time the Holder has a wait; headers are kept apart until the answer
// is written, so a dropped answer leaves none behind.
type holdWriter struct {
	w      http.ResponseWriter
	holder *kernel.Holder
	header http.Header

	mu        sync.Mutex
	committed bool
}

func (hw *holdWriter) held() bool {
	_, wait := hw.holder.Held()
	return wait != nil
}

// commit sends the headers set so far along with the answer, once.
func (hw *holdWriter) commit() {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	if !hw.committed {
		hw.committed = true
		maps.Copy(hw.w.Header(), hw.header)
	}
}

func (hw *holdWriter) Header() http.Header { return hw.header }

func (hw *holdWriter) WriteHeader(code int) {
	if hw.held() {
		return
	}
	hw.commit()
	hw.w.WriteHeader(code)
}

func (hw *holdWriter) Write(p []byte) (int, error) {
	if hw.held() {
		return len(p), nil
	}
	hw.commit()
	return hw.w.Write(p)
}

// Flush is for an answer streamed as server-sent events (which a held call
// never is); http.ResponseController finds it before Unwrap.
func (hw *holdWriter) Flush() {
	if hw.held() {
		return
	}
	hw.commit()
	_ = http.NewResponseController(hw.w).Flush()
}

// Unwrap gives http.ResponseController the connection's writer.
func (hw *holdWriter) Unwrap() http.ResponseWriter { return hw.w }

// heldPasses is how many passes of held calls go through the SDK at once:
// four per database connection, enough to keep the pool busy while others
// decode and encode, and few enough that calls do not pile up inside the
// SDK waiting for a connection.
func (s *Server) heldPasses() int {
	if s.opts.DB == nil || s.opts.DB.Pool == nil {
		return 16
	}
	return 4 * int(s.opts.DB.Pool.Config().MaxConns)
}
