package main

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk (v1.8) declares a server's experimental capabilities but has
// no public call that sends a notification it does not know, such as
// notifications/claude/channel. So pact-channel runs its server on a
// transport of its own that wraps the SDK's: the SDK reads and writes
// through channelConn as through any connection, and keeps everything it
// does (initialize, ping, capabilities, errors); channelConn adds one
// method, notify, that writes a JSON-RPC notification (a jsonrpc.Request
// without an ID) on the same connection. A mutex orders notify's writes
// with the SDK's own, so no two messages interleave on stdout. Nothing is
// sent before the client's notifications/initialized: the protocol lets a
// server speak first only after it (docs/hooks.md, "The channel").

// channelTransport is the server's transport: inner's connection,
// wrapped in conn.
type channelTransport struct {
	inner mcp.Transport
	conn  *channelConn
}

// Connect implements mcp.Transport; the SDK calls it once.
func (t *channelTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn.Connection = c
	return t.conn, nil
}

// channelConn is an mcp.Connection that also sends notifications.
type channelConn struct {
	mcp.Connection

	mu          sync.Mutex
	once        sync.Once
	initialized chan struct{}
}

func newChannelConn() *channelConn { return &channelConn{initialized: make(chan struct{})} }

// Read is the SDK's read; it notes the client's notifications/initialized.
func (c *channelConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && err == nil && !r.IsCall() && r.Method == "notifications/initialized" {
		c.once.Do(func() { close(c.initialized) })
	}
	return m, err
}

// Write is the SDK's write, ordered with notify's.
func (c *channelConn) Write(ctx context.Context, m jsonrpc.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Connection.Write(ctx, m)
}

// ready is closed once the client has sent notifications/initialized.
func (c *channelConn) ready() <-chan struct{} { return c.initialized }

// notify sends method with params as a JSON-RPC notification, once the
// client is initialized.
func (c *channelConn) notify(ctx context.Context, method string, params any) error {
	select {
	case <-c.initialized:
	case <-ctx.Done():
		return ctx.Err()
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if c.Connection == nil {
		return errors.New("pact-channel: no connection")
	}
	return c.Write(ctx, &jsonrpc.Request{Method: method, Params: raw})
}
