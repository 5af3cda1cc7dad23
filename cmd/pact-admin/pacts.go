package main

import (
	"context"
	"flag"
	"strconv"

	"github.com/google/uuid"

	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
)

// pactCommands read pacts, answer their decisions and close them: each
// calls the pacts module's method that runs what the Admin API's operation
// runs (pacts-list, pacts-get, pacts-questions, pacts-answer, pacts-close).
func pactCommands() []command {
	return []command{
		{name: "pact-list", args: "--by person [--project id]", needsDB: true,
			summary: "the Jobs list: every pact of the organization, open ones first",
			setup: func(fs *flag.FlagSet) runner {
				by, project := byFlag(fs), fs.String("project", "", "only this project's pacts")
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.pacts.Jobs(ctx, *by, *project)
				}
			}},
		{name: "pact-show", args: "<pact-id> --by person", positionals: 1, needsDB: true,
			summary: "a pact: its seats, zones, decisions and the latest page of its thread",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					if err := uuidArg("a pact id", pos[0]); err != nil {
						return nil, err
					}
					return a.pacts.Show(ctx, *by, pos[0])
				}
			}},
		{name: "pact-questions", args: "--by approver [--include-answered]", needsDB: true,
			summary: "the open decisions waiting for a person, oldest first, with their ids for pact-answer",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				answered := fs.Bool("include-answered", false, "also your answers the agent has not read yet (they can still change)")
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.pacts.Questions(ctx, *by, *answered)
				}
			}},
		{name: "pact-answer", args: "<decision-id> (--choice option | --answer text | --not-needed) --by approver", positionals: 1, needsDB: true,
			summary: "answer a pact's decision, or change the answer until the agent has read it",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				var choice, words optionalString
				fs.Var(&choice, "choice", "one of the decision's options, exactly as offered")
				fs.Var(&words, "answer", "your own words")
				notNeeded := fs.Bool("not-needed", false, "answer Not needed")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					if err := uuidArg("a decision id", pos[0]); err != nil {
						return nil, err
					}
					return a.pacts.AnswerDecision(ctx, *by, pos[0], choice.v, words.v, *notNeeded)
				}
			}},
		{name: "pact-close", args: "<pact-id> --by approver", positionals: 1, needsDB: true,
			summary: "close a pact: it stays readable, accepts no writes and leaves the open-pact count",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					if err := uuidArg("a pact id", pos[0]); err != nil {
						return nil, err
					}
					return a.pacts.ClosePact(ctx, *by, pos[0])
				}
			}},
		{name: "pact-undo", args: "<entry-id> --by approver", positionals: 1, needsDB: true,
			summary: "undo an agent's change (an entry of the pacts' changes) where it can be undone (docs/pacts.md, \"Undo\")",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					id, err := strconv.ParseInt(pos[0], 10, 64)
					if err != nil || id < 1 {
						return nil, errs.E(errs.InvalidRequest, "an entry id is a positive number, not %q", pos[0])
					}
					return a.pacts.UndoChange(ctx, *by, id)
				}
			}},
	}
}

// destinationCommands keep the organization's notification destinations:
// each calls the notify service's method that the Admin API's operation
// calls (notify-list-destinations, notify-add-destination,
// notify-disable-destination).
func destinationCommands() []command {
	return []command{
		{name: "destination-list", args: "--by person", needsDB: true,
			summary: "list the organization's notification destinations (URL hints, never secrets)",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.notify.CLI().Destinations(ctx, *by)
				}
			}},
		{name: "destination-add", args: "<notifier> <url> --by owner [--secret s] [--option key=value]...", positionals: 2, needsDB: true,
			summary: "add a notification destination through a notifier plugin of PACT_PLUGINS; its secret is printed this once",
			setup: func(fs *flag.FlagSet) runner {
				by, secret := byFlag(fs), fs.String("secret", "", "the signing secret (default: the plugin makes one)")
				options := map[string]string{}
				fs.Func("option", "key=value, repeatable: a setting the plugin reads", func(s string) error {
					return keyValue(options, s)
				})
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					var opts map[string]string
					if len(options) > 0 {
						opts = options
					}
					return a.notify.CLI().AddDestination(ctx, *by, notify.DestinationInput{Notifier: pos[0], URL: pos[1],
						Secret: *secret, Options: opts})
				}
			}},
		{name: "destination-disable", args: "<destination-id> --by owner", positionals: 1, needsDB: true,
			summary: "stop sending notifications to a destination",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					id, err := strconv.ParseInt(pos[0], 10, 64)
					if err != nil || id < 1 {
						return nil, errs.E(errs.InvalidRequest, "a destination id is a positive whole number (destination-list), not %q", pos[0])
					}
					return a.notify.CLI().DisableDestination(ctx, *by, id)
				}
			}},
	}
}

// uuidArg refuses what is not a UUID before any database work, as the
// Admin API's path check does.
func uuidArg(what, s string) error {
	if _, err := uuid.Parse(s); err != nil {
		return errs.E(errs.InvalidRequest, "%s is a UUID, as pact-list and the Admin API show it, not %q", what, s)
	}
	return nil
}
