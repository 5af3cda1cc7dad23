package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/sdk/errs"
)

func logExport() command {
	return command{name: "log-export", args: "--org id | --project id [--out file]", needsDB: true,
		summary: "write a self-contained bundle of one organization's or project's log, for pact-verify (docs/log-checkpoints.md)",
		setup: func(fs *flag.FlagSet) runner {
			org := fs.String("org", "", "export this organization's chains")
			project := fs.String("project", "", "export this project's chain")
			out := fs.String("out", "", "write the bundle to this file (default: standard output)")
			return func(ctx context.Context, a *app, _ []string) (any, error) {
				scope, err := a.exportScope(ctx, *org, *project)
				if err != nil {
					return nil, err
				}
				vkeys, err := a.logKeys()
				if err != nil {
					return nil, err
				}
				var w io.Writer = a.stdout
				if *out != "" {
					f, err := os.Create(*out)
					if err != nil {
						return nil, errs.E(errs.InvalidRequest, "cannot write %s: %v", *out, err)
					}
					defer f.Close()
					w = f
				}
				progress, done, err := a.exportProgress(ctx, scope)
				if err != nil {
					return nil, err
				}
				n, err := a.log.Export(ctx, a.db, scope, vkeys, logformat.NewWriter(w), progress)
				done()
				if err != nil {
					return nil, err
				}
				if *out == "" {
					return nil, nil // the bundle is the output
				}
				return map[string]any{"scope": scope.String(), "file": *out, "chains": n.Chains, "entries": n.Entries,
					"checkpoints": n.Checkpoints}, nil
			}
		}}
}

// exportScope checks that exactly one of org and project names something
// that exists.
func (a *app) exportScope(ctx context.Context, org, project string) (ledger.Scope, error) {
	switch {
	case (org == "") == (project == ""):
		return ledger.Scope{}, errs.E(errs.InvalidRequest, "name what to export: --org <id> or --project <id>, one of them")
	case project != "":
		p, err := identity.LoadProject(ctx, a.db, project)
		if err != nil {
			return ledger.Scope{}, err
		}
		if p == nil {
			return ledger.Scope{}, errs.E(errs.NotFound, "project %s does not exist", project)
		}
		return ledger.Scope{OrgID: p.OrgID, ProjectID: project}, nil
	}
	exists, err := a.ident.OrgExists(ctx, a.db, org)
	if err != nil {
		return ledger.Scope{}, err
	}
	if !exists {
		return ledger.Scope{}, errs.E(errs.NotFound, "organization %s does not exist", org)
	}
	return ledger.Scope{OrgID: org}, nil
}

// logKeys are the board's checkpoint verifier keys, as the board names
// and publishes them.
func (a *app) logKeys() ([]string, error) {
	_, _, vkeys, err := logformat.BoardKeys(a.cfg.PublicURL, a.keys.Kids(), func(kid string) []byte {
		seed, _ := a.keys.Seed(kid)
		return seed
	})
	return vkeys, err
}

// exportProgress draws a bar on a terminal when the export is long.
func (a *app) exportProgress(ctx context.Context, scope ledger.Scope) (ledger.Progress, func(), error) {
	if !a.terminal {
		return nil, func() {}, nil
	}
	total, err := a.log.CountEntries(ctx, a.db, scope.OrgID)
	if scope.ProjectID != "" {
		total, err = a.log.ChainLength(ctx, a.db, scope.ProjectID)
	}
	if err != nil || total < progressFrom {
		return nil, func() {}, err
	}
	bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription("exporting entries"), progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
	return func(n int) { _ = bar.Add(n) }, func() { _ = bar.Finish() }, nil
}
