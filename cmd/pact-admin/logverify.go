package main

import (
	"context"
	"flag"

	"github.com/schollz/progressbar/v3"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// progressFrom is how many entries make a run long enough for a progress bar.
const progressFrom = 5000

func logVerify() command {
	return command{name: "log-verify", args: "[--org id]", needsDB: true,
		summary: "verify every hash chain (or one organization's); exits 1 when one is broken",
		setup: func(fs *flag.FlagSet) runner {
			org := fs.String("org", "", "verify only this organization")
			return func(ctx context.Context, a *app, _ []string) (any, error) {
				progress, done, err := a.progress(ctx, *org)
				if err != nil {
					return nil, err
				}
				var out map[string][]ledger.Verdict
				if *org != "" {
					exists, err := a.ident.OrgExists(ctx, a.db, *org)
					if err != nil {
						return nil, err
					}
					if !exists {
						return nil, errs.E(errs.NotFound, "organization %s does not exist", *org)
					}
					vs, err := a.log.VerifyOrg(ctx, a.db, *org, progress)
					if err != nil {
						return nil, err
					}
					out = map[string][]ledger.Verdict{*org: vs}
				} else if out, err = a.log.VerifyAll(ctx, a.db, progress); err != nil {
					return nil, err
				}
				done()
				for _, vs := range out {
					for _, v := range vs {
						if !v.OK {
							_ = printJSON(a.stdout, out)
							return nil, errs.E(errs.ChainBroken, "chain %s is broken: %s", v.ChainKey, v.Reason)
						}
					}
				}
				return out, nil
			}
		}}
}

// progress returns a progress callback that draws a bar on a terminal when
// the run is long, and a function that clears it.
func (a *app) progress(ctx context.Context, org string) (ledger.Progress, func(), error) {
	if !a.terminal {
		return nil, func() {}, nil
	}
	total, err := a.log.CountEntries(ctx, a.db, org)
	if err != nil || total < progressFrom {
		return nil, func() {}, err
	}
	bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription("verifying entries"), progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
	return func(n int) { _ = bar.Add(n) }, func() { _ = bar.Finish() }, nil
}
