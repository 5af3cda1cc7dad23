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

// A held call parked: when the server can take connections back
// (Options.Conns), a call whose wait was held leaves net/http altogether
// while it waits. The HTTP/1.1 connection is taken over (Hijack) and
// net/http's goroutine returns, which frees what net/http keeps per
// request in progress: its 4 kB reader and 4 kB writer, the 2 kB response
// buffer, the connection's goroutine and its stack, and the background
// reader's. The parked call keeps the connection, the request (without its
// body reader), the body's bytes and the wait; two goroutines with small
// stacks: one that runs the wait, and one that reads the connection to
// notice a client going away, as net/http's background reader did. When
// the wait ends, the second pass is served as before into a buffer, the
// answer is written to the connection with its length, and the connection
// goes back to the server (Conns) for the client's next request
// (docs/benchmarks.md, "Held pact_events calls").
//
// HTTP/2 requests cannot be taken over and wait as before, on the request's
// goroutine (held.go).

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
	holder *kernel.Holder

	ctx    context.Context
	cancel context.CancelFunc
	// answering is set before the reader is stopped to write the answer, so
	// that its read ending is not taken for the client going away.
	answering atomic.Bool
	read      chan struct{}
	// spoke: the client sent bytes during the wait (a pipelined request);
	// they are not replayed, so the connection closes after the answer.
	spoke bool
}

// park takes the connection of r over for holder's wait, when it can, and
// reports whether it did; the call is then answered on the connection by
// its own goroutines. Before the connection is taken, nothing is changed,
// so a call that cannot park waits as before.
func (s *Server) park(w http.ResponseWriter, r *http.Request, h http.Handler, c *caller, body []byte, tool string,
	holder *kernel.Holder) bool {
	if !s.opts.Conns.reusable() || r.ProtoMajor != 1 {
		return false
	}
	header := w.Header().Clone() // what the middleware set for the answer
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	p := &parked{s: s, h: h, conn: conn, header: header, body: body, tool: tool, holder: holder,
		ctx: ctx, cancel: cancel, read: make(chan struct{}), spoke: rw.Reader.Buffered() > 0}
	p.c = &caller{agent: c.agent, req: ctx}
	p.r = r.WithContext(ctx)
	p.r.Body = http.NoBody // the original reads from net/http's connection, which is let go
	s.parked.Add(1)
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

// run waits, then serves the second pass and answers on the connection.
func (p *parked) run() {
	defer p.s.parked.Done()
	defer p.cancel()
	err := p.holder.Run(p.ctx) // ends early when the board drains
	if !p.s.enter(p.ctx, p.c, p.tool) {
		_ = p.conn.Close()
		return
	}
	aw := &answerWriter{header: p.header}
	pass(kernel.Waited(context.WithValue(p.ctx, callerKey{}, p.c), p.tool, err), aw, p.r, p.h, p.body)
	<-p.s.passes
	p.answer(aw)
}

// answer stops the reader, writes aw's answer and gives the connection
// back, or closes it when the client went away, spoke, or asked to close.
func (p *parked) answer(aw *answerWriter) {
	p.answering.Store(true)
	_ = p.conn.SetReadDeadline(time.Unix(1, 0))
	<-p.read
	if p.ctx.Err() != nil {
		_ = p.conn.Close() // the client went away: nothing to answer
		return
	}
	_ = p.conn.SetReadDeadline(time.Time{})
	keep := !p.spoke && !p.r.Close && p.r.ProtoAtLeast(1, 1) &&
		!strings.EqualFold(aw.header.Get("Connection"), "close")
	_ = p.conn.SetWriteDeadline(time.Now().Add(answerWriteTimeout))
	err := aw.writeTo(p.conn, p.r, !keep)
	if err != nil || !keep {
		if err != nil {
			p.s.opts.Logger.Debug("parked call's answer not delivered", "agent", p.c.agent, "tool", p.tool, "error", err)
		}
		_ = p.conn.Close()
		return
	}
	_ = p.conn.SetWriteDeadline(time.Time{})
	p.s.opts.Conns.give(p.conn)
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
