package main

import (
	"context"
	"flag"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/sdk/credential"
)

// credentialImport turns an outside credential into a root mandate for an
// agent, verified by the format's credential plugin from PACT_PLUGINS.
func credentialImport() command {
	return command{name: "credential-import", args: "<agent> <credential> [--format tenuo] --by approver", positionals: 2, needsDB: true,
		summary: "import an outside credential (a Tenuo warrant stack from a trusted root) as a root mandate",
		setup: func(fs *flag.FlagSet) runner {
			by := byFlag(fs)
			format := fs.String("format", "tenuo", "the credential's format")
			return func(ctx context.Context, a *app, pos []string) (any, error) {
				var plugins *pluginhost.Host
				defer func() {
					if plugins != nil {
						_ = plugins.Close()
					}
				}()
				plugin := func() (credential.Credential, error) {
					var err error
					if plugins, err = pluginhost.FromConfig(a.cfg, nil, hclog.NewNullLogger(), nil); err != nil {
						return nil, err
					}
					plugins.Start()
					return plugins.Credential(*format)
				}
				m, err := a.credentials.CLI().ImportCredential(ctx, *by, pos[0], *format, pos[1], plugin)
				if err != nil {
					return nil, err
				}
				return map[string]any{"mandate_id": m.ID, "agent_id": pos[0], "format": *format}, nil
			}
		}}
}
