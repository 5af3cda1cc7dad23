package kernel

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Resource is an MCP resource template a module registers, such as
// pact://projects/{project_id}/context. Its Read answers for one agent; a
// read that changes or reveals board state goes through Tools.Call like any
// tool call, so it is gated and logged the same way.
type Resource struct {
	// URITemplate is an RFC 6570 template, e.g. pact://projects/{project_id}/context/{key}.
	URITemplate string
	// Name, Title and Description are shown to agents.
	Name, Title, Description string
	// MIMEType of what Read returns, e.g. application/json.
	MIMEType string
	// Read returns the resource's text for agent. params holds the
	// template's variables, taken from uri.
	Read func(ctx context.Context, agent, uri string, params map[string]string) (string, error)
}

// Resources is the registry of MCP resource templates.
type Resources struct {
	mu   sync.Mutex
	list []*Resource
}

// Add registers r; it refuses a template registered twice or one without
// a name or a reader.
func (rs *Resources) Add(r Resource) error {
	if r.URITemplate == "" || r.Name == "" || r.Read == nil {
		return fmt.Errorf("resource %q needs a URI template, a name and a reader", r.URITemplate)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if slices.ContainsFunc(rs.list, func(x *Resource) bool { return x.URITemplate == r.URITemplate }) {
		return fmt.Errorf("resource %s is registered twice", r.URITemplate)
	}
	rs.list = append(rs.list, &r)
	return nil
}

// List returns the templates in registration order.
func (rs *Resources) List() []*Resource {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.list)
}
