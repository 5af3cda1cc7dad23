// Command pact-runner is a headless agent of PACT Board: it waits for tasks
// with pact_events, claims them, runs a command for each and reports the
// outcome with a Handoff (docs/runner.md; the original's behaviour is
// docs/specs/behavior.md §17).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	var exit guardExit
	switch {
	case errors.As(err, &exit):
		os.Exit(int(exit))
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintf(os.Stderr, "pact-runner: %s\n", err)
		os.Exit(1)
	}
}

// run is the runner until ctx ends (nil), --once is done (nil), or a
// fatal refusal or a bad configuration stops it (the error).
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "guard" {
		if code := runGuard(args[1:], os.Stdin, stderr); code != 0 {
			return guardExit(code)
		}
		return nil
	}
	cfg, err := loadConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	return newRunner(cfg, newLogger(cfg, stderr)).serve(ctx)
}

func newLogger(cfg *config, w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "pact-runner",
		Level:      hclog.LevelFromString(cfg.LogLevel),
		JSONFormat: cfg.LogFormat == "json",
		Output:     w,
	})
}

// guardExit is the guard subcommand's exit status when it blocks: its
// reason is already on stderr.
type guardExit int

func (e guardExit) Error() string { return fmt.Sprintf("guard: exit %d", int(e)) }
