package kernel

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
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

// A section is read by one statement: every section's statement travels in
// one round trip (db.Tx.Pipeline), and each section then makes its value
// from its statement's rows.

// WhoamiSectionFunc returns the statement that reads one top-level field of
// pact_whoami's answer, and the field's value once the statement has run.
type WhoamiSectionFunc func(caller WhoamiCaller) (read db.Step, value func() (any, error))

// WhoamiProjectFunc returns the statement that reads one field of each
// project in pact_whoami's answer, for all of the caller's projects at once,
// and then a value per project id; a project it leaves out gets nil.
type WhoamiProjectFunc func(caller WhoamiCaller, projectIDs []string) (read db.Step, values func() (map[string]any, error))

// WhoamiGroupFunc returns the statement that reads several top-level
// sections at once, and then each by name.
type WhoamiGroupFunc func(caller WhoamiCaller) (read db.Step, values func() (map[string]any, error))

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

// Build reads every section for caller in one round trip in tx: the
// top-level sections, and each per-project section for projectIDs (every
// registered name present for each project, nil where a builder gave none).
// Sections are read in name order, whatever order modules registered in.
// The first error stops it, wrapped with the section's module and name.
func (w *Whoami) Build(ctx context.Context, tx *db.Tx, caller WhoamiCaller, projectIDs []string) (map[string]any, map[string]map[string]any, error) {
	// Builders run without the lock held.
	w.mu.Lock()
	names, entries := sortedNames(w.sections), maps.Clone(w.sections)
	pnames, pentries := sortedNames(w.projects), maps.Clone(w.projects)
	w.mu.Unlock()

	var steps []db.Step
	var finish []func() error // in the order of steps
	add := func(label string, step db.Step, done func() error) {
		if rows := step.Rows; rows != nil {
			step.Rows = func(t *db.Tx, r pgx.Rows) error {
				if err := rows(t, r); err != nil {
					return fmt.Errorf("%s: %w", label, err)
				}
				return nil
			}
		}
		steps = append(steps, step)
		finish = append(finish, func() error {
			if err := done(); err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			return nil
		})
	}
	out := make(map[string]any, len(names))
	grouped := map[*whoamiGroup]bool{}
	for _, n := range names {
		e := entries[n]
		label := "pact_whoami section " + e.module + "." + n
		if e.group == nil {
			step, value := e.build(caller)
			add(label, step, func() (err error) { out[n], err = value(); return err })
			continue
		}
		if grouped[e.group] {
			continue
		}
		grouped[e.group] = true
		step, values := e.group.build(caller)
		g := e.group
		add(label, step, func() error {
			vs, err := values()
			for name, entry := range entries {
				if entry.group == g {
					out[name] = vs[name]
				}
			}
			return err
		})
	}
	per := make(map[string]map[string]any, len(projectIDs))
	for _, p := range projectIDs {
		per[p] = make(map[string]any, len(pnames))
	}
	for _, n := range pnames {
		step, values := pentries[n].build(caller, slices.Clone(projectIDs))
		add("pact_whoami project section "+pentries[n].module+"."+n, step, func() error {
			vs, err := values()
			for _, p := range projectIDs {
				per[p][n] = vs[p]
			}
			return err
		})
	}
	if err := tx.Pipeline(ctx, steps...); err != nil {
		return nil, nil, err
	}
	for _, f := range finish {
		if err := f(); err != nil {
			return nil, nil, err
		}
	}
	return out, per, nil
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
