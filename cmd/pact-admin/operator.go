package main

import (
	"context"
	"flag"

	"github.com/pactboard/pact/core/pluginhost"
)

// operatorCommands are for whoever runs the platform: no Admin API route
// reaches them. Each writes to the affected organizations' own logs.
func operatorCommands() []command {
	orgHalt := func(name string, halted bool) command {
		return command{name: name, args: "<org-id>", positionals: 1, needsDB: true,
			summary: map[bool]string{true: "operator: halt one organization", false: "operator: resume one organization"}[halted],
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return map[string]any{"org_id": pos[0], "halted": halted}, a.people.CLI().SetOrgHaltedByOperator(ctx, pos[0], halted)
				}
			}}
	}
	platform := func(name string, halted bool) command {
		return command{name: name, needsDB: true,
			summary: map[bool]string{true: "operator: stop every organization (platform kill switch)", false: "operator: lift the platform kill switch"}[halted],
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return map[string]bool{"platform_halted": halted}, a.people.CLI().SetPlatformHalted(ctx, halted)
				}
			}}
	}
	return []command{
		{name: "org-list", needsDB: true, summary: "operator: list organizations with their sizes (never their people)",
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, _ []string) (any, error) { return a.people.CLI().ListOrgs(ctx) }
			}},
		{name: "org-rename", args: "<org-id> <name>", positionals: 2, needsDB: true, summary: "operator: rename an organization",
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return map[string]string{"org_id": pos[0], "name": pos[1]}, a.people.CLI().RenameOrg(ctx, pos[0], pos[1])
				}
			}},
		{name: "plugin-pin", args: "<binary> [--kind k] [--name n]", positionals: 1,
			summary: "print the PACT_PLUGINS entry that pins a plugin binary to its sha256 (no database)",
			setup: func(fs *flag.FlagSet) runner {
				kind := fs.String("kind", "", "notifier, credential or authissuer; default: from the file's name (notifier-…, credential-…, auth-…)")
				name := fs.String("name", "", "the plugin's name in the catalog; default: the file's name without its kind (notifier-slack: slack)")
				return func(_ context.Context, a *app, pos []string) (any, error) {
					return pluginhost.PinEntry(pos[0], a.cfg.PluginDir, pluginhost.Kind(*kind), *name)
				}
			}},
		orgHalt("org-halt", true), orgHalt("org-unhalt", false),
		platform("platform-halt", true), platform("platform-unhalt", false),
	}
}
