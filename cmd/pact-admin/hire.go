package main

import (
	"context"
	"flag"

	"github.com/pactboard/pact/modules/people"
)

// hireCommands hire agents from roles, give them setup codes, and keep the
// roles: each calls, through the people module's cli.go, the service method
// that the Admin API's operation calls.
func hireCommands() []command {
	return []command{
		{name: "hire", args: "<role> <project> --by approver [--id id] [--owner human] [--replaces agent] [--limits JSON] [--delegations n] [--days d]",
			positionals: 2, needsDB: true,
			summary: "hire an agent from a role; prints its setup code (pact-connect <board> <code>) or, for Claude apps, its connector",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				id := fs.String("id", "", "the agent's id (default <role>-<project>)")
				owner := fs.String("owner", "", "the person the agent answers to (default: --by)")
				replaces := fs.String("replaces", "", "an agent this one replaces: it is banned and its tokens and mandates revoked")
				limits := fs.String("limits", "", "budgets as a JSON object (default: the role's)")
				var delegations optionalInt
				fs.Var(&delegations, "delegations", "how many times the agent may delegate further (0-5, default: the role's)")
				days := fs.Float64("days", 0, "days until the root mandate expires (default: the role's term)")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					lim, err := parseLimits(*limits)
					if err != nil {
						return nil, err
					}
					return a.people.CLI().Hire(ctx, *by, people.HireInput{Role: pos[0], Project: pos[1], ID: *id, Owner: *owner,
						Replaces: *replaces, Limits: lim, Delegations: delegations.v, Days: *days})
				}
			}},
		{name: "setup-code", args: "<agent> --by approver", positionals: 1, needsDB: true,
			summary: "give an agent a new one-time setup code, valid 15 minutes (Claude apps: their connector)",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.people.CLI().NewSetupCode(ctx, *by, pos[0])
				}
			}},
		{name: "role-list", args: "--by person [--archived]", needsDB: true,
			summary: "list the roles agents are hired from (secret settings show only as set)",
			setup: func(fs *flag.FlagSet) runner {
				by, archived := byFlag(fs), fs.Bool("archived", false, "include archived roles")
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.people.CLI().Roles(ctx, *by, *archived)
				}
			}},
		roleSave(),
		{name: "role-archive", args: "<role> --by approver", positionals: 1, needsDB: true,
			summary: "archive a role: it hires no one; its agents keep working",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.people.CLI().ArchiveRole(ctx, *by, pos[0])
				}
			}},
	}
}

func roleSave() command {
	return command{name: "role-save", positionals: 1, needsDB: true,
		args: "<role> --by approver --name text --client <chat|cowork|design|code|gemini|runner|a2a|a2a-remote> --actions a,b " +
			"[--description text] [--limits JSON] [--delegations n] [--mandate-days d] [--token-days d] " +
			"[--setting KEY=value]... [--instructions text] [--position n]",
		summary: "create or replace a role, with every setting (saving an archived role un-archives it)",
		setup: func(fs *flag.FlagSet) runner {
			by := byFlag(fs)
			name, client := fs.String("name", "", "the role's name"), fs.String("client", "", "chat, cowork, design, code, gemini, runner, a2a or a2a-remote")
			actions := fs.String("actions", "", "comma-separated project-relative actions its mandate grants, e.g. task.read,task.work")
			description, instructions := fs.String("description", "", "what the role is for"), fs.String("instructions", "", "what its agents are told")
			limits := fs.String("limits", "", "budgets as a JSON object")
			var delegations, position optionalInt
			fs.Var(&delegations, "delegations", "how many times its agents may delegate further (0-5, default 1)")
			fs.Var(&position, "position", "its place in the list (default 100)")
			mandateDays := fs.Float64("mandate-days", 0, "its mandates' term in days (default 30)")
			tokenDays := fs.Float64("token-days", 0, "its tokens' term in days (default 90)")
			settings := map[string]string{}
			fs.Func("setting", "KEY=value, repeatable: PACT_RUNNER_* or DATABASE_URL for runners; a secret's value [REDACTED] keeps the one the role holds",
				func(s string) error { return keyValue(settings, s) })
			return func(ctx context.Context, a *app, pos []string) (any, error) {
				lim, err := parseLimits(*limits)
				if err != nil {
					return nil, err
				}
				return a.people.CLI().SaveRole(ctx, *by, people.RoleInput{ID: pos[0], Name: *name, Description: *description,
					Client: *client, Actions: list(*actions), Limits: lim, Delegations: delegations.v, MandateDays: *mandateDays,
					TokenDays: *tokenDays, Settings: settings, Instructions: *instructions, Position: position.v})
			}
		}}
}
