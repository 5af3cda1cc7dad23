// Command pact-board is the PACT Board server. It reads its configuration
// from the environment (pact-board --help lists every variable), runs on the
// embedded PostgreSQL unless DATABASE_URL is set, and stops cleanly on
// SIGTERM or SIGINT.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

func main() {
	installAdminErrors()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// installAdminErrors sets huma's one global, its error constructor, to the
// Admin API's error model. It runs once, before any API is built.
func installAdminErrors() {
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
}

// run is the whole command: it returns the exit code. A failure prints one
// line, "pact-board: <message>", on stderr.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pact-board", flag.ContinueOnError)
	fs.SetOutput(stderr)
	demo := fs.Bool("demo", false, "on first start, create an owner, a project \"demo\" and a code agent, and print how to connect it")
	fs.Usage = func() { usage(stdout, fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pact-board: unexpected argument %q (see pact-board --help)\n", fs.Arg(0))
		return 2
	}

	cfg, err := boot.Load(getenv)
	if err != nil {
		return fail(stderr, err)
	}
	manifest, err := bundledManifest()
	if err != nil {
		return fail(stderr, err)
	}
	m := NewMain(cfg, newLogger(cfg, stderr))
	m.Demo, m.Out, m.Manifest = *demo, stdout, manifest
	err = m.Run(ctx)
	err = errors.Join(err, m.Close())
	if err != nil {
		return fail(stderr, err)
	}
	return 0
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: pact-board [--demo]

Serves PACT Board: MCP for agents at /mcp/a/<agent-id>, the Admin API at
/admin/api, /healthz and /readyz. Without DATABASE_URL it runs PostgreSQL
itself under PACT_DATA_DIR. SIGTERM or SIGINT stops it cleanly: /readyz
turns 503 and held calls are answered with reconnect at once, then calls in
flight finish (PACT_DRAIN_SECONDS, PACT_SHUTDOWN_SECONDS).

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, "\nEnvironment:\n")
	_ = boot.WriteVars(w)
}

func newLogger(cfg *boot.Config, w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "pact-board",
		Level:      hclog.LevelFromString(cfg.LogLevel),
		JSONFormat: cfg.LogFormat == "json",
		Output:     w,
	})
}

// fail prints err as one line: what a person needs is the message, and a
// multi-line cause (pg_ctl's output, say) is folded onto it.
func fail(stderr io.Writer, err error) int {
	msg := err.Error()
	if e, ok := errs.As(err); ok && e.Err == nil && errs.IsRefusal(e) {
		msg = e.Message // a refusal's message is written for people; its code adds nothing here
	}
	fmt.Fprintf(stderr, "pact-board: %s\n", oneLine(msg))
	return 1
}

func oneLine(s string) string {
	var parts []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, " | ")
}
