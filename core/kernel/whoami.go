package kernel

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"

	"github.com/uptrace/bun"
)

// pact_whoami's answer is assembled from sections that modules register,
// so each part is read by the module that owns its tables
// (docs/architecture.md, "Table ownership"): the notes module adds each
// project's notes, the people module the agent's role, and the board module
// serves the tool and adds its own parts.

// WhoamiCaller is the agent pact_whoami answers, as the tool pipeline
// established it.
type WhoamiCaller struct {
	AgentID string
	OrgID   string
}

// WhoamiSectionFunc builds one top-level field of pact_whoami's answer, in
// the call's transaction.
type WhoamiSectionFunc func(ctx context.Context, tx bun.IDB, caller WhoamiCaller) (any, error)

// WhoamiProjectFunc builds one field of each project in pact_whoami's
// answer, for all of the caller's projects at once (one query, not one per
// project). It returns a value per project id; a project it leaves out gets
// nil.
type WhoamiProjectFunc func(ctx context.Context, tx bun.IDB, caller WhoamiCaller, projectIDs []string) (map[string]any, error)

// WhoamiGroupFunc builds several top-level sections at once (one query for
// all of them), returning each by name.
type WhoamiGroupFunc func(ctx context.Context, tx bun.IDB, caller WhoamiCaller) (map[string]any, error)

// Whoami is the registry of pact_whoami's sections.
type Whoami struct {
	mu       sync.Mutex
	sections map[string]whoamiEntry[WhoamiSectionFunc]
	projects map[string]whoamiEntry[WhoamiProjectFunc]
}

type whoamiEntry[F any] struct {
	module string
	build  F
	group  *whoamiGroup // set for a section built with others
}

type whoamiGroup struct{ build WhoamiGroupFunc }

// sectionName is a section's JSON field name.
var sectionName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

func newWhoami() *Whoami {
	return &Whoami{
		sections: map[string]whoamiEntry[WhoamiSectionFunc]{},
		projects: map[string]whoamiEntry[WhoamiProjectFunc]{},
	}
}

// AddSection registers module's top-level section name. It refuses a
// malformed name, a nil builder and a name already taken.
func (w *Whoami) AddSection(module, name string, build WhoamiSectionFunc) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return addWhoami(w.sections, module, name, build, build == nil)
}

// AddSectionGroup registers module's top-level sections names, built
// together by build (once per answer), with the same refusals as AddSection
// for each name; it registers all of them or none.
func (w *Whoami) AddSectionGroup(module string, names []string, build WhoamiGroupFunc) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	g := &whoamiGroup{build: build}
	added := []string{}
	for _, n := range names {
		if err := addWhoami(w.sections, module, n, WhoamiSectionFunc(nil), build == nil); err != nil {
			for _, a := range added {
				delete(w.sections, a)
			}
			return err
		}
		w.sections[n] = whoamiEntry[WhoamiSectionFunc]{module: module, group: g}
		added = append(added, n)
	}
	return nil
}

// AddProjectSection registers module's per-project section name, with the
// same refusals as AddSection.
func (w *Whoami) AddProjectSection(module, name string, build WhoamiProjectFunc) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return addWhoami(w.projects, module, name, build, build == nil)
}

func addWhoami[F any](m map[string]whoamiEntry[F], module, name string, build F, isNil bool) error {
	switch prev, taken := m[name]; {
	case !sectionName.MatchString(name):
		return fmt.Errorf("pact_whoami section %q must match %s", name, sectionName)
	case isNil:
		return fmt.Errorf("pact_whoami section %s needs a builder", name)
	case taken:
		return fmt.Errorf("pact_whoami section %s is registered by %s and %s", name, prev.module, module)
	}
	m[name] = whoamiEntry[F]{module: module, build: build}
	return nil
}

// Names returns the registered section names, top-level then per-project,
// each in name order.
func (w *Whoami) Names() (sections, projects []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return sortedNames(w.sections), sortedNames(w.projects)
}

// Sections builds every top-level section for caller, in name order so the
// queries run in the same order whatever order modules registered in. The
// first error stops it, wrapped with the section's module and name.
func (w *Whoami) Sections(ctx context.Context, tx bun.IDB, caller WhoamiCaller) (map[string]any, error) {
	// Builders run without the lock held.
	w.mu.Lock()
	names, entries := sortedNames(w.sections), maps.Clone(w.sections)
	w.mu.Unlock()
	out := make(map[string]any, len(names))
	built := map[*whoamiGroup]map[string]any{}
	for _, n := range names {
		e := entries[n]
		if e.group == nil {
			v, err := e.build(ctx, tx, caller)
			if err != nil {
				return nil, fmt.Errorf("pact_whoami section %s.%s: %w", e.module, n, err)
			}
			out[n] = v
			continue
		}
		vs, done := built[e.group]
		if !done {
			var err error
			if vs, err = e.group.build(ctx, tx, caller); err != nil {
				return nil, fmt.Errorf("pact_whoami section %s.%s: %w", e.module, n, err)
			}
			built[e.group] = vs
		}
		out[n] = vs[n]
	}
	return out, nil
}

// ProjectSections builds every per-project section for caller's
// projectIDs, in name order: the result maps each project id to its
// fields (every registered name present, nil where a builder gave none).
func (w *Whoami) ProjectSections(ctx context.Context, tx bun.IDB, caller WhoamiCaller, projectIDs []string) (map[string]map[string]any, error) {
	w.mu.Lock()
	names, entries := sortedNames(w.projects), maps.Clone(w.projects)
	w.mu.Unlock()
	out := make(map[string]map[string]any, len(projectIDs))
	for _, p := range projectIDs {
		out[p] = make(map[string]any, len(names))
	}
	for _, n := range names {
		vs, err := entries[n].build(ctx, tx, caller, slices.Clone(projectIDs))
		if err != nil {
			return nil, fmt.Errorf("pact_whoami project section %s.%s: %w", entries[n].module, n, err)
		}
		for _, p := range projectIDs {
			out[p][n] = vs[p]
		}
	}
	return out, nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// WhoamiSection registers a top-level section of pact_whoami's answer,
// named name (its JSON field), built by build in the call's transaction.
func (h *Host) WhoamiSection(name string, build WhoamiSectionFunc) error {
	return h.k.seams.whoami.AddSection(h.module, name, build)
}

// WhoamiSectionGroup registers several top-level sections of pact_whoami's
// answer that build reads together, in one query.
func (h *Host) WhoamiSectionGroup(names []string, build WhoamiGroupFunc) error {
	return h.k.seams.whoami.AddSectionGroup(h.module, names, build)
}

// WhoamiProjectSection registers a field of each project in pact_whoami's
// answer (the notes module's "context").
func (h *Host) WhoamiProjectSection(name string, build WhoamiProjectFunc) error {
	return h.k.seams.whoami.AddProjectSection(h.module, name, build)
}

// Whoami returns pact_whoami's sections, for the module that serves the
// tool to assemble the answer from.
func (h *Host) Whoami() *Whoami { return h.k.seams.whoami }

// Whoami returns pact_whoami's sections.
func (k *Kernel) Whoami() *Whoami { return k.seams.whoami }
