package main

import (
	"context"
	"flag"
)

// operatorCommands are for whoever runs the platform: no Admin API route
// reaches them. Each writes to the affected organizations' own logs.
func operatorCommands() []command {
	orgHalt := func(name string, halted bool) command {
		return command{name: name, args: "<org-id>", positionals: 1, needsDB: true,
			summary: map[bool]string{true: "operator: halt one organization", false: "operator: resume one organization"}[halted],
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return map[string]any{"org_id": pos[0], "halted": halted}, a.people.SetOrgHaltedByOperator(ctx, pos[0], halted)
				}
			}}
	}
	platform := func(name string, halted bool) command {
		return command{name: name, needsDB: true,
			summary: map[bool]string{true: "operator: stop every organization (platform kill switch)", false: "operator: lift the platform kill switch"}[halted],
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return map[string]bool{"platform_halted": halted}, a.people.SetPlatformHalted(ctx, halted)
				}
			}}
	}
	return []command{
		{name: "org-list", needsDB: true, summary: "operator: list organizations with their sizes (never their people)",
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, _ []string) (any, error) { return a.people.ListOrgs(ctx) }
			}},
		{name: "org-rename", args: "<org-id> <name>", positionals: 2, needsDB: true, summary: "operator: rename an organization",
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return map[string]string{"org_id": pos[0], "name": pos[1]}, a.people.RenameOrg(ctx, pos[0], pos[1])
				}
			}},
		orgHalt("org-halt", true), orgHalt("org-unhalt", false),
		platform("platform-halt", true), platform("platform-unhalt", false),
	}
}
