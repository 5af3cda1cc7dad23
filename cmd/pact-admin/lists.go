package main

import (
	"context"
	"flag"

	"github.com/pactboard/pact/modules/board"
)

// listCommands are the organization's lists a person reads: each calls the
// module method that answers what the Admin API's list operation answers
// (people-list-agents, people-list-humans, people-list-projects,
// board-list-tasks).
func listCommands() []command {
	return []command{
		{name: "agent-list", args: "--by person", needsDB: true,
			summary: "list the organization's agents, with their mandates, keys and open tasks",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, _ []string) (any, error) { return a.people.CLI().Agents(ctx, *by) }
			}},
		{name: "human-list", args: "--by person", needsDB: true,
			summary: "list the organization's people",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, _ []string) (any, error) { return a.people.CLI().Humans(ctx, *by) }
			}},
		{name: "project-list", args: "--by person", needsDB: true,
			summary: "list the organization's projects",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, _ []string) (any, error) { return a.people.CLI().Projects(ctx, *by) }
			}},
		{name: "task-list", args: "--by person [--status s] [--project p] [--agent a] [--open] [--deferred]", needsDB: true,
			summary: "list the organization's tasks, at most 200, most recently updated first",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				status := fs.String("status", "", "only this status: submitted, working, input_required, auth_required, completed, failed, canceled or rejected")
				project, agent := fs.String("project", "", "only this project's"), fs.String("agent", "", "only tasks this agent created, holds or was delegated")
				open, deferred := fs.Bool("open", false, "only open tasks"), fs.Bool("deferred", false, "only deferred tasks")
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.board.TasksFor(ctx, *by, board.TaskFilter{Status: *status, Project: *project, Agent: *agent,
						Open: *open, Deferred: *deferred})
				}
			}},
	}
}
