package a2a

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Stream writes a JSON-RPC binding's Server-Sent Events: each event is one
// JSON-RPC response to the request that opened the stream
// (docs/specs/a2a.md, "SendStreamingMessage").
type Stream struct {
	w       http.ResponseWriter
	flusher http.Flusher
	id      json.RawMessage
	started bool
}

// NewStream answers the request with id as an event stream.
func NewStream(w http.ResponseWriter, id json.RawMessage) *Stream {
	f, _ := w.(http.Flusher)
	return &Stream{w: w, flusher: f, id: id}
}

// Send writes one StreamResponse as an event and flushes it.
func (s *Stream) Send(ev StreamResponse) error { return s.write(Result(s.id, ev)) }

// Fail writes an error as the stream's last event.
func (s *Stream) Fail(e *Error) error { return s.write(Failure(s.id, e)) }

func (s *Stream) write(r Response) error {
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Accel-Buffering", "no")
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}

// Comment writes an SSE comment, which clients ignore: a keepalive.
func (s *Stream) Comment(text string) error {
	if !s.started {
		return nil
	}
	if _, err := fmt.Fprintf(s.w, ": %s\n\n", text); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}
