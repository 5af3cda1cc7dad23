package main

import (
	"context"
	"flag"
	"strconv"
	"strings"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

// inboxCommands read and mark a person's own inbox, and choose what is
// emailed to them (notify-get-email-settings, notify-set-email-settings) (docs/notifications.md,
// "The inbox"): each calls the method the Admin API's inbox operation calls
// (notify-list-notifications, notify-count-notifications,
// notify-mark-notification-read, notify-mark-all-notifications-read).
func inboxCommands() []command {
	return []command{
		{name: "email-choices", args: "--by person", needsDB: true,
			summary: "the notification kinds a person has emailed, and whether the board sends email at all",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.notify.CLI().EmailSettings(ctx, *by)
				}
			}},
		{name: "email-choose", args: "--by person --kinds kind,kind,… (empty: none)", needsDB: true,
			summary: "choose which notification kinds are emailed to a person (all others are not)",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				kinds := fs.String("kinds", "", "the kinds to email, comma-separated, e.g. pact_unread,approval_needed; empty turns email off")
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					list := []string{}
					for _, k := range strings.Split(*kinds, ",") {
						if k = strings.TrimSpace(k); k != "" {
							list = append(list, k)
						}
					}
					return a.notify.CLI().SetEmailKinds(ctx, *by, list)
				}
			}},
		{name: "notifications", args: "--by person [--filter unread|waiting|all] [--before id] [--limit n]", needsDB: true,
			summary: "list a person's notifications, newest first",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				filter := fs.String("filter", "all", "unread, waiting (asks you to act and is still open) or all")
				before := fs.Int64("before", 0, "only notifications older than this id (the page's next)")
				limit := fs.Int("limit", 0, "at most this many (default: the Admin API's page)")
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.notify.CLI().Inbox(ctx, *by, outbox.Filter(*filter), *before, *limit)
				}
			}},
		{name: "notification-counts", args: "--by person", needsDB: true,
			summary: "how many of a person's notifications are unread, and how many wait on them",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					return a.notify.CLI().InboxCounts(ctx, *by)
				}
			}},
		{name: "notification-read", args: "<notification-id> --by person", positionals: 1, needsDB: true,
			summary: "mark one of a person's notifications read",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				return func(ctx context.Context, a *app, pos []string) (any, error) {
					id, err := strconv.ParseInt(pos[0], 10, 64)
					if err != nil || id < 1 {
						return nil, errs.E(errs.InvalidRequest, "a notification id is a positive whole number (notifications), not %q", pos[0])
					}
					if err := a.notify.CLI().MarkRead(ctx, *by, id); err != nil {
						return nil, err
					}
					return map[string]any{"ok": true, "notification_id": id}, nil
				}
			}},
		{name: "notifications-read", args: "--by person [--up-to id]", needsDB: true,
			summary: "mark all of a person's unread notifications read (up to an id, when given)",
			setup: func(fs *flag.FlagSet) runner {
				by := byFlag(fs)
				upTo := fs.Int64("up-to", 0, "only those with this id or older")
				return func(ctx context.Context, a *app, _ []string) (any, error) {
					n, err := a.notify.CLI().MarkAllRead(ctx, *by, *upTo)
					if err != nil {
						return nil, err
					}
					return map[string]any{"marked": n}, nil
				}
			}},
	}
}
