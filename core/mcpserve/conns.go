package mcpserve

import (
	"errors"
	"net"
	"sync"
)

// Conns takes back the connections of parked calls (park.go) once they
// are answered, and hands them to the HTTP server as if newly accepted:
// the client's next request on a keep-alive connection is then served as
// any other. Wrap the server's listener with it before serving; until
// then, and once that listener is closed, a connection given back is
// closed instead.
type Conns struct {
	back chan net.Conn
	done chan struct{}

	mu      sync.Mutex
	wrapped bool
	closed  bool
}

// NewConns returns a Conns to pass in Options and to wrap the listener.
func NewConns() *Conns {
	return &Conns{back: make(chan net.Conn), done: make(chan struct{})}
}

// Wrap returns ln accepting also the connections given back. Call it
// once; closing the returned listener closes ln.
func (cs *Conns) Wrap(ln net.Listener) net.Listener {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.wrapped {
		panic("mcpserve: Conns.Wrap called twice")
	}
	cs.wrapped = true
	l := &listener{Listener: ln, cs: cs, accepted: make(chan accepted)}
	go l.accept()
	return l
}

// give hands c back to the server; it reports false, having closed c,
// when no server takes connections back.
func (cs *Conns) give(c net.Conn) bool {
	cs.mu.Lock()
	ok := cs.wrapped && !cs.closed
	cs.mu.Unlock()
	if ok {
		select {
		case cs.back <- c:
			return true
		case <-cs.done:
		}
	}
	_ = c.Close()
	return false
}

// reusable reports whether a connection given back will be served again.
func (cs *Conns) reusable() bool {
	if cs == nil {
		return false
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.wrapped && !cs.closed
}

type accepted struct {
	c   net.Conn
	err error
}

// listener is the wrapped listener. Its own goroutine accepts, so that
// Accept can wait for a new connection and a given-back one at once.
type listener struct {
	net.Listener
	cs       *Conns
	accepted chan accepted
	once     sync.Once
}

func (l *listener) accept() {
	for {
		c, err := l.Listener.Accept()
		select {
		case l.accepted <- accepted{c, err}:
		case <-l.cs.done:
			if c != nil {
				_ = c.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case a := <-l.accepted:
		return a.c, a.err
	case c := <-l.cs.back:
		return c, nil
	case <-l.cs.done:
		return nil, net.ErrClosed
	}
}

func (l *listener) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() {
		l.cs.mu.Lock()
		l.cs.closed = true
		l.cs.mu.Unlock()
		close(l.cs.done)
	})
	return err
}
