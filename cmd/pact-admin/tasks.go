package main

import (
	"context"
	"flag"

	"github.com/google/uuid"

	"github.com/pactboard/pact/sdk/errs"
)

// taskCommands are a person's decisions on a task. Each calls the board's
// method that the Admin API's operation calls (approve-task, reject-task,
// resume-task, message-task, change-task-answer, cancel-task, assign-task,
// release-task, edit-task), so both refuse alike.
func taskCommands() []command {
	decide := func(name, summary string, approve bool) command {
		return command{name: name, args: "<task-id> --by approver", positionals: 1, needsDB: true, summary: summary,
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					if err := taskID(pos[0]); err != nil {
						return nil, err
					}
					return a.board.ApproveTask(ctx, *by, pos[0], approve)
				}
			}}
	}
	onTask := func(name, args, summary string, positionals int, flags func(fs *flag.FlagSet) func(ctx context.Context, a *app, by string, pos []string) (any, error)) command {
		return command{name: name, args: args, positionals: positionals, needsDB: true, summary: summary,
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				do := flags(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					if err := taskID(pos[0]); err != nil {
						return nil, err
					}
					return do(ctx, a, *by, pos)
				}
			}}
	}
	return []command{
		onTask("task-cancel", "<task-id> --by approver [--reason text]", "cancel an open task; its delegated mandates are revoked and its open subtasks canceled", 1,
			func(fs *flag.FlagSet) func(ctx context.Context, a *app, by string, pos []string) (any, error) {
				reason := fs.String("reason", "", "why, for the log and the agents")
				return func(ctx context.Context, a *app, by string, pos []string) (any, error) {
					return a.board.CancelTask(ctx, by, pos[0], *reason)
				}
			}),
		onTask("task-assign", "<task-id> (--to agent | --nobody) --by approver", "delegate an open, unheld task to another agent of its project, or to nobody", 1,
			func(fs *flag.FlagSet) func(ctx context.Context, a *app, by string, pos []string) (any, error) {
				to, nobody := fs.String("to", "", "the agent to delegate it to"), fs.Bool("nobody", false, "take the delegation away")
				return func(ctx context.Context, a *app, by string, pos []string) (any, error) {
					if (*to == "") == !*nobody {
						return nil, errs.E(errs.InvalidRequest, "name the agent with --to <agent>, or --nobody to take the delegation away")
					}
					return a.board.AssignTask(ctx, by, pos[0], *to)
				}
			}),
		onTask("task-release", "<task-id> --by approver", "take a working task from its holder and put it back on the board", 1,
			func(fs *flag.FlagSet) func(ctx context.Context, a *app, by string, pos []string) (any, error) {
				return func(ctx context.Context, a *app, by string, pos []string) (any, error) {
					return a.board.ReleaseTask(ctx, by, pos[0])
				}
			}),
		onTask("task-edit", "<task-id> [--title text] [--body text] --by approver", "correct an open task's title or body; the log keeps the old text", 1,
			func(fs *flag.FlagSet) func(ctx context.Context, a *app, by string, pos []string) (any, error) {
				var title, body optionalString
				fs.Var(&title, "title", "the new title, 1-300 characters")
				fs.Var(&body, "body", "the new body")
				return func(ctx context.Context, a *app, by string, pos []string) (any, error) {
					return a.board.EditTask(ctx, by, pos[0], title.v, body.v)
				}
			}),
		onTask("task-answer", "<task-id> <answer> --by approver", "change the answer given on resume while the agent that asked has not read it", 2,
			func(fs *flag.FlagSet) func(ctx context.Context, a *app, by string, pos []string) (any, error) {
				return func(ctx context.Context, a *app, by string, pos []string) (any, error) {
					return a.board.ChangeTaskAnswer(ctx, by, pos[0], pos[1])
				}
			}),
		decide("task-approve", "approve a task waiting for approval", true),
		decide("task-reject", "reject a task waiting for approval; its delegated mandate is revoked", false),
		{name: "task-resume", args: "<task-id> --by approver [--answer text]", positionals: 1, needsDB: true,
			summary: "put a deferred task back on the board, with the answer the agent sees",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				var answer *string
				fs.Func("answer", "the answer the agent sees in pact_list (absent: keep the last)", func(s string) error {
					answer = &s
					return nil
				})
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					if err := taskID(pos[0]); err != nil {
						return nil, err
					}
					return a.board.ResumeTask(ctx, *by, pos[0], answer)
				}
			}},
		{name: "task-message", args: "<task-id> <text> --by approver [--to agent]", positionals: 2, needsDB: true,
			summary: "write to an agent on a task's thread (default: its holder, delegate, else creator)",
			setup: func(fs *flag.FlagSet) runner {
				by, to := byFlag(fs), fs.String("to", "", "the agent it is for")
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					if err := taskID(pos[0]); err != nil {
						return nil, err
					}
					var recipient *string
					if *to != "" {
						recipient = to
					}
					return a.board.MessageTask(ctx, *by, pos[0], pos[1], recipient)
				}
			}},
	}
}

// taskID refuses what is not a task id before any database work, as the
// Admin API's path check does.
func taskID(s string) error {
	if _, err := uuid.Parse(s); err != nil {
		return errs.E(errs.InvalidRequest, "a task id is a UUID, as pact_list and the Admin API show it, not %q", s)
	}
	return nil
}
