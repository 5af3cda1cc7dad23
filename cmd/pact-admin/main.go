// Command pact-admin is the operator's and people's command line: it talks
// straight to the board's PostgreSQL. Every command prints JSON; a refusal
// prints {"error": code, "message": …} on stderr and exits 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"
	"golang.org/x/term"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/modules/audit"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/modules/notes"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

func main() {
	installAdminErrors()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// installAdminErrors sets huma's one global, the error constructor, as the
// board does: pact-admin builds the same kernel (for its hooks), though it
// serves no Admin API.
func installAdminErrors() {
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
}

// app is what a command works with. The database is opened only for
// commands that need it.
type app struct {
	cfg      *boot.Config
	db       *db.DB
	log      *ledger.Log
	mandates *mandate.Service
	keys     *mandate.Keyring
	ident    *identity.Service
	applied  []string // migrations this run applied
	board    *board.Module
	// The modules whose services the commands call, as the Admin API does.
	mandateAdmin *mandates.Module
	audit        *audit.Module
	credentials  *credentials.Module
	people       *people.Module
	pacts        *pacts.Module
	notify       *notify.Module
	// notifiers start the notifier plugins of PACT_PLUGINS on first use
	// (destination-add), and stop them when the command ends.
	notifiers *lazyNotifiers
	stdout    io.Writer
	stderr    io.Writer
	terminal  bool
}

// command is one pact-admin subcommand. setup declares its flags on fs and
// returns what runs it with the positional arguments.
type command struct {
	name, args, summary string
	needsDB             bool
	positionals         int
	setup               func(fs *flag.FlagSet) func(ctx context.Context, a *app, pos []string) (any, error)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout, cmds)
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		return fail(stderr, errs.E(errs.InvalidRequest, "unknown command %q; run pact-admin --help for the list", args[0]))
	}
	fs := flag.NewFlagSet("pact-admin "+cmd.name, flag.ContinueOnError)
	runCmd := cmd.setup(fs)
	pos, err := parse(fs, args[1:], cmd.positionals, "pact-admin "+cmd.name+" "+cmd.args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(stdout, cmd, fs)
		return 0
	}
	if err != nil {
		return fail(stderr, err)
	}
	cfg, err := boot.Load(getenv)
	if err != nil {
		return fail(stderr, err)
	}
	a := &app{cfg: cfg, stdout: stdout, stderr: stderr, terminal: isTerminal(stderr)}
	if cmd.needsDB {
		release, err := a.open(ctx)
		if err != nil {
			return fail(stderr, err)
		}
		defer release()
	}
	out, err := runCmd(ctx, a, pos)
	if err != nil {
		return fail(stderr, err)
	}
	if err := printJSON(stdout, out); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// open connects to the database (DATABASE_URL, else the embedded default),
// applies pending migrations (every command needs the current schema) and
// builds the services.
func (a *app) open(ctx context.Context) (func(), error) {
	key, err := boot.SigningKey(a.cfg)
	if err != nil {
		return nil, err
	}
	keys, err := mandate.ParseKeyring(a.cfg.BoardKeys, key)
	if err != nil {
		return nil, err
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "pact-admin", Output: a.stderr, Level: hclog.Warn})
	d, release, err := boot.Connect(ctx, a.cfg, logger)
	if err != nil {
		return nil, err
	}
	if a.applied, err = d.Migrate(ctx); err != nil {
		_ = release()
		return nil, err
	}
	if a.applied == nil {
		a.applied = []string{}
	}
	a.db, a.keys = d, keys
	a.log = ledger.New(&ledger.Options{Statements: a.cfg.DBStatements})
	a.mandates = mandate.NewService(keys, &mandate.Options{Statements: a.cfg.DBStatements})
	a.ident = identity.NewService(d, a.log, nil)
	// The modules, in the board's order (cmd/pact-board/board.go),
	// register their hooks (revoking a mandate cancels the tasks
	// under it) exactly as in the board, so a person's action here has the
	// same effects as through the Admin API.
	a.board, a.mandateAdmin, a.audit = board.New(), mandates.New(), audit.New()
	a.credentials, a.people = credentials.New(credentials.Options{Keys: keys}), people.New()
	a.notifiers = &lazyNotifiers{cfg: a.cfg}
	a.pacts, a.notify = pacts.New(pacts.Options{Notifiers: a.notifiers}), notify.New(notify.Options{Notifiers: a.notifiers})
	k := kernel.New(kernel.Deps{DB: d, Log: a.log, Mandates: a.mandates, Identity: a.ident, Logger: logger, Config: a.cfg})
	if err := k.Register(a.board, a.mandateAdmin, notes.New(), a.pacts, a.people, a.audit, a.notify, a.credentials); err != nil {
		_ = release()
		return nil, err
	}
	return func() {
		a.notifiers.close()
		_ = release()
	}, nil
}

// fail prints err as the error JSON and returns the exit code.
func fail(w io.Writer, err error) int {
	pub := errs.Public(err)
	if e, ok := errs.As(err); !ok || e.Code == errs.Internal {
		// Outside a refusal, the cause is the only useful thing to show a
		// person at a terminal (a missing PostgreSQL, a bad DATABASE_URL).
		pub.Message = err.Error()
	}
	body := map[string]any{"error": pub.Code, "message": pub.Message}
	if pub.MandateID != "" {
		body["mandate_id"] = pub.MandateID
	}
	_ = printJSON(w, body)
	return 1
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprint(w, `pact-admin: manage a PACT Board from the command line.

Usage: pact-admin <command> [arguments] [flags]
       pact-admin <command> --help

Every command prints JSON on stdout. A refusal prints {"error": code, "message": …}
on stderr and exits 1. Commands that change something need --by <human-id>, the
person acting (the first human-add bootstraps an owner without it).

The database is DATABASE_URL, or without it the embedded PostgreSQL under
PACT_DATA_DIR (default .pact/), which the board shares.

Commands:
`)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := cmds[n]
		fmt.Fprintf(w, "  %-17s %s\n", n, c.summary)
	}
}

func commandUsage(w io.Writer, c command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: pact-admin %s %s\n\n%s\n", c.name, c.args, c.summary)
	var flags strings.Builder
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", flags.String())
	}
}
