package main

import (
	"context"
	"flag"

	"github.com/google/uuid"

	"github.com/pactboard/pact/sdk/errs"
)

// taskCommands are a person's decisions on a task. Each calls the board's
// method that the Admin API's operation calls (approve-task, reject-task,
// resume-task, message-task), so both refuse alike.
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
	return []command{
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
