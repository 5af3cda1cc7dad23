package main

import (
	"context"
	"crypto/rand"
	"flag"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

type runner = func(ctx context.Context, a *app, pos []string) (any, error)

// commands is the command table; a fresh one per run, never shared.
func commands() map[string]command {
	all := []command{
		{name: "migrate", summary: "apply the database migrations not yet applied, then revoke the delegated mandates of closed tasks", needsDB: true,
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					var swept int
					err := a.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
						swept, err = a.board.SweepClosedTasks(ctx, tx)
						return err
					})
					return map[string]any{"applied": a.applied, "closed_task_mandates_revoked": swept}, err
				}
			}},
		{name: "key-new", summary: "print a fresh Ed25519 keyring entry for PACT_BOARD_KEYS (no database)",
			setup: func(fs *flag.FlagSet) runner {
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					entry, err := mandate.NewKeyEntry(time.Now(), rand.Reader)
					return map[string]string{"entry": entry, "how": "prepend to PACT_BOARD_KEYS; keep old entries"}, err
				}
			}},
		{name: "human-add", args: "<id> <name> <owner|approver|viewer> [--email e] [--by owner]", positionals: 3, needsDB: true,
			summary: "add a person (the first one bootstraps an owner without --by)",
			setup: func(fs *flag.FlagSet) runner {
				by, email := fs.String("by", "", "the owner adding this person (not needed for the first person)"), fs.String("email", "", "their email, unique in the organization: the account with this verified email accepts the invitation (GET /admin/api/invitations)")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.people.CLI().AddHuman(ctx, *by, identity.HumanInput{ID: pos[0], Name: pos[1], Role: identity.Role(pos[2]), Email: *email})
				}
			}},
		{name: "project-add", args: "<id> <name> --by owner [--production]", positionals: 2, needsDB: true,
			summary: "add a project to the acting owner's organization",
			setup: func(fs *flag.FlagSet) runner {
				by, prod := byFlag(fs), fs.Bool("production", false, "mark it production (runners never work on it)")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.people.CLI().AddProject(ctx, *by, pos[0], pos[1], *prod)
				}
			}},
		{name: "project-set", args: "<id> --by owner [--production true|false] [--frozen true|false]", positionals: 1, needsDB: true,
			summary: "change a project's production and frozen flags",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				var prod, frozen optionalBool
				fs.Var(&prod, "production", "true or false")
				fs.Var(&frozen, "frozen", "true or false")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.people.CLI().SetProjectFlags(ctx, *by, pos[0], people.ProjectFlags{Production: prod.v, Frozen: frozen.v})
				}
			}},
		agentRegister(),
		{name: "agent-status", args: "<id> <active|paused|banned> --by approver", positionals: 2, needsDB: true,
			summary: "pause, ban (owners only) or reactivate an agent",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.people.CLI().SetAgentStatus(ctx, *by, pos[0], pos[1])
				}
			}},
		{name: "agent-prefs", args: "<id> '<JSON object>' --by approver", positionals: 2, needsDB: true,
			summary: "replace an agent's preferences (a JSON object of at most 4000 characters)",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					prefs, err := a.people.CLI().SetPreferences(ctx, *by, pos[0], []byte(pos[1]))
					return map[string]any{"agent_id": pos[0], "preferences": prefs}, err
				}
			}},
		{name: "token-issue", args: "<agent> --by approver [--days 30]", positionals: 1, needsDB: true,
			summary: "issue a further token for an agent (printed once)",
			setup: func(fs *flag.FlagSet) runner {
				by, days := byFlag(fs), fs.Float64("days", 30, "days until the token expires (at most 365)")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.people.CLI().IssueToken(ctx, *by, pos[0], *days)
				}
			}},
		{name: "token-revoke", args: "<agent> --by approver", positionals: 1, needsDB: true,
			summary: "revoke every live token of an agent",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					n, err := a.people.CLI().RevokeTokens(ctx, *by, pos[0])
					return map[string]any{"agent_id": pos[0], "revoked": n}, err
				}
			}},
		mandateIssue(), credentialImport(),
		{name: "mandate-revoke", args: "<mandate-id> --by approver", positionals: 1, needsDB: true,
			summary: "revoke a mandate and everything delegated under it",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					return a.mandateAdmin.CLI().RevokeMandate(ctx, *by, pos[0])
				}
			}},
		haltCommand("halt", true), haltCommand("unhalt", false),
		{name: "payload-erase", args: "<entry-id> --by owner", positionals: 1, needsDB: true,
			summary: "erase one log entry's payload (PDPA); the chain still verifies",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					id, err := strconv.ParseInt(pos[0], 10, 64)
					if err != nil || id < 1 {
						return nil, errs.E(errs.InvalidRequest, "an entry id is a positive whole number, not %q", pos[0])
					}
					erased, err := a.audit.CLI().ErasePayload(ctx, *by, id)
					return map[string]any{"entry_id": id, "erased": erased}, err
				}
			}},
		logVerify(),
		logExport(),
	}
	all = append(all, keyCommands()...)
	all = append(all, taskCommands()...)
	all = append(all, hireCommands()...)
	all = append(all, pactCommands()...)
	all = append(all, destinationCommands()...)
	all = append(all, listCommands()...)
	all = append(all, inboxCommands()...)
	all = append(all, operatorCommands()...)
	out := make(map[string]command, len(all))
	for _, c := range all {
		out[c.name] = c
	}
	return out
}

func byFlag(fs *flag.FlagSet) *string {
	return fs.String("by", "", "the id of the person acting (required)")
}

func agentRegister() command {
	return command{name: "agent-register", positionals: 1, needsDB: true,
		args:    "<id> --by approver --client <chat|cowork|design|code|gemini|runner|a2a|a2a-remote> --projects a,b [--scope s1,s2] [--limits JSON] [--delegations 2] [--days 30] [--owner human]",
		summary: "register an agent; prints its root mandate and its token (shown once)",
		setup: func(fs *flag.FlagSet) runner {
			by := byFlag(fs)
			client := fs.String("client", "", "chat, cowork, design, code, gemini, runner, a2a or a2a-remote")
			projects := fs.String("projects", "", "comma-separated project ids (code and runner: exactly one)")
			scope := fs.String("scope", "", "comma-separated scopes (default task.read, task.post, task.work on each project)")
			limits := fs.String("limits", "", `budgets as a JSON object, e.g. '{"runs": 50, "turns": 2000}'`)
			var delegations optionalInt
			fs.Var(&delegations, "delegations", "how many times the agent may delegate further (0-5, default 2)")
			days := fs.Float64("days", 30, "days until the root mandate and the token expire (at most 365)")
			owner := fs.String("owner", "", "the person the agent answers to (default: --by)")
			return func(ctx context.Context, a *app, pos []string) (any, error) {
				lim, err := parseLimits(*limits)
				if err != nil {
					return nil, err
				}
				return a.people.CLI().RegisterAgent(ctx, *by, people.AgentInput{ID: pos[0], Client: *client, Projects: list(*projects),
					Scope: list(*scope), Limits: lim, Delegations: delegations.v, MandateDays: *days, TokenDays: *days, Owner: *owner})
			}
		}}
}

func mandateIssue() command {
	return command{name: "mandate-issue", positionals: 1, needsDB: true,
		args:    "<holder> --by approver --scope a,b [--limits JSON] [--delegations 1] [--days 30]",
		summary: "issue a further root mandate to an agent",
		setup: func(fs *flag.FlagSet) runner {
			by := byFlag(fs)
			scope := fs.String("scope", "", "comma-separated scopes, e.g. task.work@project:web")
			limits := fs.String("limits", "", "budgets as a JSON object")
			var delegations optionalInt
			fs.Var(&delegations, "delegations", "how many times the holder may delegate further (0-5, default 1)")
			days := fs.Float64("days", 30, "days until the mandate expires (at most 365)")
			return func(ctx context.Context, a *app, pos []string) (any, error) {
				lim, err := parseLimits(*limits)
				if err != nil {
					return nil, err
				}
				return a.mandateAdmin.CLI().IssueMandate(ctx, *by, mandates.IssueInput{Holder: pos[0], Scope: list(*scope),
					Limits: lim, Delegations: delegations.v, Days: *days})
			}
		}}
}

func parseLimits(s string) (map[string]float64, error) {
	if s == "" {
		return nil, nil
	}
	return mandate.ParseLimits([]byte(s))
}

func haltCommand(name string, halted bool) command {
	what := "resume the agents of the acting owner's organization"
	if halted {
		what = "stop every agent of the acting owner's organization (the kill switch)"
	}
	return command{name: name, args: "--by owner", needsDB: true, summary: what,
		setup: func(fs *flag.FlagSet) runner {
			by := byFlag(fs)
			return func(ctx context.Context, a *app, _ []string) (any, error) {
				return map[string]bool{"halted": halted}, a.people.CLI().SetOrgHalted(ctx, *by, halted)
			}
		}}
}
