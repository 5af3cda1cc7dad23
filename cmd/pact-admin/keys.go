package main

import (
	"context"
	"flag"
)

// keyCommands register agents' Ed25519 keys and the organization's
// trusted roots.
func keyCommands() []command {
	return []command{
		{name: "agent-key-add", args: "<agent> <public_key> --by approver", positionals: 2, needsDB: true,
			summary: "register an Ed25519 public key (base64url of its 32 raw bytes) for a code or runner agent",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.credentials.CLI().AddAgentKey(ctx, *by, pos[0], pos[1])
				}
			}},
		{name: "agent-key-revoke", args: "<agent> <kid> --by approver", positionals: 2, needsDB: true,
			summary: "revoke one of an agent's keys",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					n, err := a.credentials.CLI().RevokeAgentKey(ctx, *by, pos[0], pos[1])
					return map[string]any{"agent_id": pos[0], "kid": pos[1], "revoked": n}, err
				}
			}},
		{name: "trusted-root-add", args: "<public_key> --human <id> [--label text] --by owner", positionals: 1, needsDB: true,
			summary: "trust an outside Ed25519 key to issue credentials for a person (a revoked one is reactivated from now on)",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				human, label := fs.String("human", "", "the person of the organization the key stands for"), fs.String("label", "", "a name for the key")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.credentials.CLI().AddTrustedRoot(ctx, *by, pos[0], *human, *label)
				}
			}},
		{name: "trusted-root-revoke", args: "<principal> --by owner", positionals: 1, needsDB: true,
			summary: "stop trusting a key",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					n, err := a.credentials.CLI().RevokeTrustedRoot(ctx, *by, pos[0])
					return map[string]any{"principal": pos[0], "revoked": n}, err
				}
			}},
		{name: "trusted-root-list", args: "--by person", needsDB: true,
			summary: "list the acting person's organization's trusted roots",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.credentials.CLI().TrustedRoots(ctx, *by)
				}
			}},
	}
}
