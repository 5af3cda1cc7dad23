package kernel

import (
	"context"
	"fmt"
	"sync"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// Modules never import each other (docs/architecture.md, "Hooks instead of
// imports"); they meet at seams the kernel keeps without knowing what flows
// through them. core/seams declares each seam between modules: its key,
// its Go type, who provides or publishes it and who uses or subscribes.

// Seam names a capability T that exactly one module provides and any
// module may use, such as the board's facts. Declare one as a constant
// (const BoardFactsSeam kernel.Seam[BoardFacts] = "the board's facts"): the
// name is what refusals and errors show, and the type parameter keeps two
// seams of the same name apart.
type Seam[T any] string

// Hook names an event E that one module publishes, inside its
// transaction, and any module may subscribe to, such as "an organization
// was created".
type Hook[E any] string

// Seams is where seams are provided and used and hooks subscribed and
// published: a module's *Host at Register, which records the module's name,
// or the *Kernel itself, for the test harness and cmd/.
type Seams interface {
	seamRegistry() (r *seamRegistry, module string)
}

func (h *Host) seamRegistry() (*seamRegistry, string)   { return h.k.seams.registry, h.module }
func (k *Kernel) seamRegistry() (*seamRegistry, string) { return k.seams.registry, "kernel" }

// seamRegistry holds the providers of seams and the subscribers of hooks,
// keyed by the typed key itself (a Seam[T] or Hook[E] as an interface
// value), so seams of different types never meet. Modules add at start-up;
// lookups happen at call time.
type seamRegistry struct {
	mu        sync.Mutex
	providers map[any]provider
	hooks     map[any][]subscriber
}

type provider struct {
	module string
	impl   any
}

type subscriber struct {
	module string
	fn     any
}

func newSeamRegistry() *seamRegistry {
	return &seamRegistry{providers: map[any]provider{}, hooks: map[any][]subscriber{}}
}

// Provide makes impl the provider of seam s. Only one module may provide
// a seam, and not with a nil impl.
func Provide[T any](r Seams, s Seam[T], impl T) error {
	reg, module := r.seamRegistry()
	if any(impl) == nil {
		return fmt.Errorf("module %s provides nil for seam %q", module, s)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if p, taken := reg.providers[s]; taken {
		return fmt.Errorf("seam %q is provided by %s and %s", s, p.module, module)
	}
	reg.providers[s] = provider{module: module, impl: impl}
	return nil
}

// Use returns the lookup of seam s's provider. The lookup asks at call
// time, so a module may keep it from its Register whatever order cmd/
// registers modules in; while no module provides s it is refused as
// unavailable.
func Use[T any](r Seams, s Seam[T]) func() (T, error) {
	reg, _ := r.seamRegistry()
	return func() (T, error) {
		if impl, ok := lookup(reg, s); ok {
			return impl, nil
		}
		var none T
		return none, errs.E(errs.Unavailable, "no module provides %s on this board", s)
	}
}

// UseOr is Use for a seam whose absence has a meaning: while no module
// provides s, the lookup answers fallback (the default core/seams declares
// next to the seam, such as "no keys").
func UseOr[T any](r Seams, s Seam[T], fallback T) func() T {
	reg, _ := r.seamRegistry()
	return func() T {
		if impl, ok := lookup(reg, s); ok {
			return impl
		}
		return fallback
	}
}

func lookup[T any](reg *seamRegistry, s Seam[T]) (T, bool) {
	reg.mu.Lock()
	p, ok := reg.providers[s]
	reg.mu.Unlock()
	impl, _ := p.impl.(T) // Provide stored a T under this key
	return impl, ok
}

// Subscribe adds fn to hook e's subscribers; call it at start-up only.
func Subscribe[E any](r Seams, e Hook[E], fn func(ctx context.Context, tx bun.IDB, event E) error) error {
	reg, module := r.seamRegistry()
	if fn == nil {
		return fmt.Errorf("module %s subscribes nil to hook %q", module, e)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	reg.hooks[e] = append(reg.hooks[e], subscriber{module: module, fn: fn})
	return nil
}

// Publisher returns the function that publishes hook e: it runs every
// subscriber in the order they subscribed, inside the publisher's
// transaction tx, and stops at the first error, which it returns wrapped
// with the subscriber's module; the publisher's transaction then rolls
// back. With no subscriber it does nothing.
func Publisher[E any](r Seams, e Hook[E]) func(ctx context.Context, tx bun.IDB, event E) error {
	reg, _ := r.seamRegistry()
	return func(ctx context.Context, tx bun.IDB, event E) error {
		reg.mu.Lock()
		subs := append([]subscriber(nil), reg.hooks[e]...)
		reg.mu.Unlock()
		for _, s := range subs {
			if err := s.fn.(func(context.Context, bun.IDB, E) error)(ctx, tx, event); err != nil {
				return fmt.Errorf("hook %q of %s: %w", e, s.module, err)
			}
		}
		return nil
	}
}

// seams are the kernel's registries through which modules ask each other
// for what they own, and through which the kernel asks modules for what it
// needs itself: the generic seams and hooks, pact_whoami's sections, the
// console's sessions and the grants of a run credential.
type seams struct {
	registry *seamRegistry
	whoami   *Whoami
	sessions *adminSessions
	grants   *grants
}

func newSeams() *seams {
	return &seams{registry: newSeamRegistry(), whoami: newWhoami(), sessions: &adminSessions{}, grants: &grants{}}
}
