package mcpserve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pactboard/pact/core/kernel"
)

// A call parked: when the server can take connections back
// (Options.Conns), a call of a tool with a Wait phase leaves net/http as
// soon as peek has found it, before its passes, which may queue for a
// slot (a herd of agents reconnecting at once) and then wait up to 50 s.
// The HTTP/1.1 connection is taken over (Hijack) and net/http's goroutine
// returns, which frees what net/http keeps per request in progress: its
// 4 kB reader and 4 kB writer, the 2 kB response buffer, the connection's
// goroutine and its stack, and the background reader's. The parked call
// keeps the connection, the request (without its body reader), the body's
// bytes and, while it waits, the wait; two goroutines with small stacks:
// one that serves the passes and waits, and one that reads the connection
// to notice a client going away, as net/http's background reader did.
// Each pass is served as before, into a buffer; the answer is written to
// the connection with its length, and the connection goes back to the
// server (Conns) for the client's next request (docs/benchmarks.md, "Held
// pact_events calls").
//
// HTTP/2 requests cannot be taken over and are served as before, on the
// request's goroutine (held.go).

// answerWriteTimeout bounds writing a parked call's answer: a client that
// stopped reading must not keep the connection and the goroutine.
const answerWriteTimeout = 10 * time.Second

type parked struct {
	s      *Server
	h      http.Handler
	conn   net.Conn
	r      *http.Request
	header http.Header
	body   []byte
	c      *caller
	tool   string

	ctx    context.Context
	cancel context.CancelFunc
	// answering is set before the reader is stopped to write the answer, so
	// that its read ending is not taken for the client going away.
	answering atomic.Bool
	read      chan struct{}
	// spoke: the client sent bytes before its answer (a pipelined request);
	// they are not replayed, so the connection closes after the answer.
	spoke bool
	// given: the connection went back to the server, which owns it now.
	given bool
}

// park takes the connection of r over for the call, when it can, and
// reports whether it did; the call is then served and answered on the
// connection by goroutines of its own. Before the connection is taken,
// nothing is changed, so a call that cannot park is served as before.
func (s *Server) park(w http.ResponseWriter, r *http.Request, h http.Handler, c *caller, body []byte, tool string) bool {
	if !s.opts.Conns.reusable() || r.ProtoMajor != 1 {
		return false
	}
	header := w.Header().Clone() // what the middleware set for the answer
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	p := &parked{s: s, h: h, conn: conn, header: header, body: body, tool: tool,
		ctx: ctx, cancel: cancel, read: make(chan struct{}), spoke: rw.Reader.Buffered() > 0}
	p.c = &caller{agent: c.agent, req: ctx, grant: c.grant}
	p.r = r.WithContext(ctx)
	p.r.Body = http.NoBody // the original reads from net/http's connection, which is let go
	s.parked.add()
	go p.watch()
	go p.run()
	return true
}

// watch reads the connection during the wait: the client going away (end
// of file, a reset) cancels the wait, as net/http's background reader
// cancels a request's context.
func (p *parked) watch() {
	defer close(p.read)
	var b [1]byte
	n, err := p.conn.Read(b[:])
	switch {
	case n > 0:
		p.spoke = true
	case p.answering.Load() && errors.Is(err, os.ErrDeadlineExceeded):
	default:
		p.cancel()
	}
}

// run serves the first pass; when the call must wait, the wait and the
// second pass go on on a new goroutine: this one's stack has grown through
// the SDK and the database, and would be kept, half used, for the whole
// wait.
func (p *parked) run() {
	if !p.s.enter(p.ctx, p.c, p.tool) {
		p.end()
		return
	}
	aw := &answerWriter{header: p.header.Clone()}
	holder := p.s.firstPass(aw, p.r, p.h, p.c, p.body)
	<-p.s.passes
	if holder != nil {
		go p.waitThenAnswer(holder)
		return
	}
	p.answer(aw)
	p.end()
}

// waitThenAnswer waits, then serves the second pass and answers.
func (p *parked) waitThenAnswer(holder *kernel.Holder) {
	defer p.end()
	err := holder.Run(p.ctx) // ends early when the board drains
	if !p.s.enter(p.ctx, p.c, p.tool) {
		return
	}
	aw := &answerWriter{header: p.header}
	pass(kernel.Waited(context.WithValue(p.ctx, callerKey{}, p.c), p.tool, err), aw, p.r, p.h, p.body)
	<-p.s.passes
	p.answer(aw)
}

// end closes the connection unless it was given back, and counts the call
// answered.
func (p *parked) end() {
	if !p.given {
		_ = p.conn.Close()
	}
	p.cancel()
	p.s.parked.done()
}

// answer stops the reader, writes aw's answer and gives the connection
// back, unless the client went away, spoke, or asked to close (end closes
// it then).
func (p *parked) answer(aw *answerWriter) {
	p.answering.Store(true)
	_ = p.conn.SetReadDeadline(time.Unix(1, 0))
	<-p.read
	if p.ctx.Err() != nil {
		return // the client went away: nothing to answer
	}
	_ = p.conn.SetReadDeadline(time.Time{})
	keep := !p.spoke && !p.r.Close && p.r.ProtoAtLeast(1, 1) &&
		!strings.EqualFold(aw.header.Get("Connection"), "close")
	_ = p.conn.SetWriteDeadline(time.Now().Add(answerWriteTimeout))
	if err := aw.writeTo(p.conn, p.r, !keep); err != nil {
		p.s.opts.Logger.Debug("parked call's answer not delivered", "agent", p.c.agent, "tool", p.tool, "error", err)
		return
	}
	if keep {
		_ = p.conn.SetWriteDeadline(time.Time{})
		p.given = true // closed by the server if it takes no more
		p.s.opts.Conns.give(p.conn)
	}
}

// answerWriter keeps the second pass's answer, for writing it with its
// length once the SDK is done.
type answerWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (aw *answerWriter) Header() http.Header { return aw.header }

func (aw *answerWriter) WriteHeader(code int) {
	if aw.code == 0 {
		aw.code = code
	}
}

func (aw *answerWriter) Write(b []byte) (int, error) {
	aw.WriteHeader(http.StatusOK)
	return aw.body.Write(b)
}

// Flush is for http.ResponseController: the answer goes out whole.
func (aw *answerWriter) Flush() {}

// writeTo writes the answer as an HTTP/1.1 response to r.
func (aw *answerWriter) writeTo(w io.Writer, r *http.Request, closing bool) error {
	aw.WriteHeader(http.StatusOK)
	if aw.header.Get("Date") == "" {
		aw.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	aw.header.Del("Transfer-Encoding") // the answer goes with its length (Response.Write writes it)
	resp := &http.Response{StatusCode: aw.code, ProtoMajor: 1, ProtoMinor: 1, Header: aw.header,
		ContentLength: int64(aw.body.Len()), Body: io.NopCloser(&aw.body), Request: r, Close: closing}
	return resp.Write(w)
}
