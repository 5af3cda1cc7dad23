package notify_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
)

// cliBoard is the inbox's cast (inboxBoard) with the notify module whose
// terminal adapter pact-admin calls.
func cliBoard(t *testing.T) (*inboxBoard, notify.CLI) {
	t.Helper()
	m := notify.New(notify.Options{})
	return newInboxBoardWith(t, m), m.CLI()
}

// inboxIDs is the ids of a page's items, in order.
func inboxIDs(t *testing.T, p *notify.InboxPage) []int64 {
	t.Helper()
	require.NotNil(t, p)
	out := []int64{}
	for _, it := range p.Items {
		out = append(out, it.ID)
	}
	return out
}

// pact-admin reads and marks the inbox of the person it names, as that
// person: their notices only, their counts, their marks; another's notice
// is not found, and marking leaves everyone else's inbox as it was.
func TestTheCLIReadsAndMarksTheNamedPersonsOwnInbox(t *testing.T) {
	ctx := context.Background()
	b, cli := cliBoard(t)
	approval := enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "approve"})
	closed := enqueue(t, b.DB, outbox.Notification{Kind: outbox.TaskClosed, ProjectID: "web", TaskID: b.task, AgentID: "helper", Title: "done"})

	page, err := cli.Inbox(ctx, "ana", outbox.All, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []int64{closed, approval}, inboxIDs(t, page), "newest first")
	page, err = cli.Inbox(ctx, "vic", outbox.All, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []int64{closed}, inboxIDs(t, page), "vic's own notices only")
	c, err := cli.InboxCounts(ctx, "ana")
	require.NoError(t, err)
	require.Equal(t, &notify.InboxCounts{Unread: 2}, c)

	require.Equal(t, errs.NotFound, errs.CodeOf(cli.MarkRead(ctx, "vic", approval)), "not in vic's inbox")
	require.NoError(t, cli.MarkRead(ctx, "ana", approval))
	page, err = cli.Inbox(ctx, "ana", outbox.Unread, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []int64{closed}, inboxIDs(t, page))
	c, err = cli.InboxCounts(ctx, "val")
	require.NoError(t, err)
	require.Equal(t, &notify.InboxCounts{Unread: 1}, c, "ana's mark is ana's")

	n, err := cli.MarkAllRead(ctx, "ana", 0)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	c, err = cli.InboxCounts(ctx, "ana")
	require.NoError(t, err)
	require.Equal(t, &notify.InboxCounts{}, c)
	c, err = cli.InboxCounts(ctx, "vic")
	require.NoError(t, err)
	require.Equal(t, &notify.InboxCounts{Unread: 1}, c, "vic's inbox is as it was")
}

// pact-admin reads and sets the email choices of the person it names, and
// theirs alone; an unknown kind changes nothing.
func TestTheCLISetsTheNamedPersonsOwnEmailChoices(t *testing.T) {
	ctx := context.Background()
	_, cli := cliBoard(t)
	on := func(s *notify.EmailSettings) []string {
		t.Helper()
		require.NotNil(t, s)
		kinds := []string{}
		for _, k := range s.Kinds {
			if k.Email {
				kinds = append(kinds, k.Kind)
			}
		}
		return kinds
	}
	s, err := cli.EmailSettings(ctx, "vic")
	require.NoError(t, err)
	require.NotNil(t, s)
	require.Equal(t, "vic@example.com", s.Address)
	require.Len(t, s.Kinds, len(outbox.Kinds()), "every kind is listed")
	require.Empty(t, on(s), "off until chosen")

	s, err = cli.SetEmailKinds(ctx, "vic", []string{"brief", "message"})
	require.NoError(t, err)
	require.Equal(t, []string{"brief", "message"}, on(s), "the answer is the choices as set")
	s, err = cli.EmailSettings(ctx, "vic")
	require.NoError(t, err)
	require.Equal(t, []string{"brief", "message"}, on(s))
	s, err = cli.EmailSettings(ctx, "ana")
	require.NoError(t, err)
	require.Empty(t, on(s), "vic's choices are vic's")

	_, err = cli.SetEmailKinds(ctx, "vic", []string{"gossip"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
	s, err = cli.EmailSettings(ctx, "vic")
	require.NoError(t, err)
	require.Equal(t, []string{"brief", "message"}, on(s), "a refused change changes nothing")
}

// pact-admin acts for a person only: naming nobody, someone who is no
// person, or a disabled person is forbidden, for every inbox and email
// call, and a disabled person's choices stay as they were.
func TestTheCLIRefusesWhoIsNoActivePerson(t *testing.T) {
	ctx := context.Background()
	b, cli := cliBoard(t)
	id := enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "approve"})
	require.Contains(t, b.addressed(t, id), "dan", "dan, disabled, is told all the same")
	for _, who := range []string{"", "zed", "dan"} {
		t.Run("by="+who, func(t *testing.T) {
			calls := map[string]func() error{
				"Inbox": func() error {
					_, err := cli.Inbox(ctx, who, outbox.All, 0, 0)
					return err
				},
				"InboxCounts": func() error {
					_, err := cli.InboxCounts(ctx, who)
					return err
				},
				"MarkRead": func() error { return cli.MarkRead(ctx, who, id) },
				"MarkAllRead": func() error {
					_, err := cli.MarkAllRead(ctx, who, 0)
					return err
				},
				"EmailSettings": func() error {
					_, err := cli.EmailSettings(ctx, who)
					return err
				},
				"SetEmailKinds": func() error {
					_, err := cli.SetEmailKinds(ctx, who, []string{"brief"})
					return err
				},
			}
			for name, call := range calls {
				require.Equal(t, errs.Forbidden, errs.CodeOf(call()), "%s", name)
			}
		})
	}
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM inbox WHERE human_id = 'dan' AND read_at IS NOT NULL`),
		"dan's inbox is unread still")
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM email_choices WHERE human_id = 'dan'`),
		"dan's email choices are as they were")
}
