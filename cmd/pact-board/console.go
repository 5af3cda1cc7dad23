package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/modules/console"
)

// consoleLink prints, when PACT_CONSOLE_LOCAL_SIGNIN is on, a one-time
// link signing the first owner in to the console, as Jupyter prints its
// token URL: it goes to the operator's terminal only, works once and for
// console.LocalCodeTTL, and each start prints a new one (docs/security.md,
// "The console's local sign-in link"). A process that serves no console
// (PACT_ROLE=admin, or PACT_ADMIN_API=off) prints none.
func consoleLink(ctx context.Context, cfg *boot.Config, d *db.DB, out io.Writer) error {
	if !cfg.ConsoleLocalSignin || cfg.Role != boot.RoleBoard || !cfg.AdminAPI {
		return nil
	}
	owner, err := firstOwner(ctx, d)
	if err != nil || owner == "" {
		return err
	}
	link, err := console.LocalLink(ctx, d, cfg.PublicURL, owner, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Console: %s\n(signs in %s once, within %d minutes; each start prints a new link)\n\n",
		link, owner, int(console.LocalCodeTTL/time.Minute))
	return nil
}
