package outbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/outbox"
)

// inboxOffice is kerneltest's office (ana owner, val approver, vic viewer
// in the default organization, with project web) with ana's agent code-web
// in web, a task code-web posted that waits for approval, and acme (owned
// by bo) with its project rocket.
type inboxOffice struct {
	*kerneltest.World
	task string
}

func newInboxOffice(t *testing.T) *inboxOffice {
	t.Helper()
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true})
	w.Office()
	w.Org("acme", "bo")
	w.Project("bo", "rocket", false)
	r := w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	o := &inboxOffice{World: w}
	require.NoError(t, w.DB.NewRaw(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
		VALUES (gen_random_uuid(), 'web', 'Deploy', 'code-web', ?, 'auth_required') RETURNING id::text`,
		r.RootMandateID.String()).Scan(context.Background(), &o.task))
	return o
}

// enqueue commits notification n and returns its id.
func enqueue(t *testing.T, d *db.DB, n outbox.Notification) int64 {
	t.Helper()
	var id int64
	require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		id, err = outbox.Enqueue(ctx, tx, n)
		return err
	}))
	return id
}

// list is the ids ListInbox returns for human in org.
func (o *inboxOffice) list(t *testing.T, org, human string, f outbox.Filter, before int64, limit int) []int64 {
	t.Helper()
	items, err := outbox.ListInbox(context.Background(), o.DB, org, human, f, before, limit)
	require.NoError(t, err)
	ids := []int64{}
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// Waits holds exactly the kinds that ask a person to act while their cause
// is open (docs/notifications.md, "Who is told: the inbox"): an approval,
// a deferral, a question and a pact decision; the rest only inform.
func TestOnlyTheKindsThatAskAPersonToActWait(t *testing.T) {
	waiting := map[outbox.Kind]bool{outbox.ApprovalNeeded: true, outbox.Deferred: true, outbox.Question: true,
		outbox.PactDecision: true}
	for _, k := range outbox.Kinds() {
		require.Equal(t, waiting[k], outbox.Waits(k), "kind %s", k)
	}
}

// A person's inbox lists their own notices newest first, a page at a time
// (limit, then older than before); "waiting" holds the notices whose task
// still waits on them, following the task's status; "unread" loses what
// they mark read; and another person's or another organization's notice is
// neither listed nor marked.
func TestAPersonsInboxListsPagesFiltersAndMarksTheirOwnNotices(t *testing.T) {
	ctx := context.Background()
	o := newInboxOffice(t)
	approval := enqueue(t, o.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: o.task,
		Title: "Approve the deploy", Detail: "deploy.prod"})
	question := enqueue(t, o.DB, outbox.Notification{Kind: outbox.Question, ProjectID: "web", TaskID: o.task,
		AgentID: "code-web", Title: "Which region?"})
	brief := enqueue(t, o.DB, outbox.Notification{Kind: outbox.Brief, ProjectID: "web", Title: "Weekly brief"})
	forVal := enqueue(t, o.DB, outbox.Notification{Kind: outbox.PactUnread, ProjectID: "web", HumanID: "val", Title: "t"})
	acmes := enqueue(t, o.DB, outbox.Notification{Kind: outbox.Brief, ProjectID: "rocket", Title: "Acme's brief"})

	items, err := outbox.ListInbox(ctx, o.DB, "default", "ana", outbox.All, 0, 10)
	require.NoError(t, err)
	require.Len(t, items, 3)
	require.Equal(t, []int64{brief, question, approval}, []int64{items[0].ID, items[1].ID, items[2].ID})
	require.Equal(t, outbox.ApprovalNeeded, items[2].Kind)
	require.Equal(t, "Approve the deploy", items[2].Title)
	require.Equal(t, "deploy.prod", items[2].Detail)
	require.Equal(t, "web", items[2].ProjectID)
	require.Equal(t, o.task, items[2].TaskID)
	require.Equal(t, "code-web", items[1].AgentID)
	require.Nil(t, items[2].ReadAt)
	require.Equal(t, []bool{false, false, true}, []bool{items[0].Waiting, items[1].Waiting, items[2].Waiting},
		"the task waits for approval: the approval waits, the question does not yet")

	require.Equal(t, []int64{brief, question}, o.list(t, "default", "ana", outbox.All, 0, 2), "the first page")
	require.Equal(t, []int64{approval}, o.list(t, "default", "ana", outbox.All, question, 2), "the page after question")
	require.Equal(t, []int64{approval}, o.list(t, "default", "ana", outbox.Waiting, 0, 10))
	require.Equal(t, []int64{forVal, approval}, o.list(t, "default", "val", outbox.All, 0, 10))
	require.Equal(t, []int64{acmes}, o.list(t, "acme", "bo", outbox.All, 0, 10))
	require.Empty(t, o.list(t, "acme", "ana", outbox.All, 0, 10), "ana's inbox in another organization is empty")
	_, err = outbox.ListInbox(ctx, o.DB, "default", "ana", outbox.Filter("read"), 0, 10)
	require.ErrorContains(t, err, `unknown inbox filter "read"`)

	unread, waiting, err := outbox.CountInbox(ctx, o.DB, "default", "ana")
	require.NoError(t, err)
	require.Equal(t, [2]int{3, 1}, [2]int{unread, waiting})

	marked, err := outbox.MarkRead(ctx, o.DB, "default", "ana", question)
	require.NoError(t, err)
	require.True(t, marked)
	items, err = outbox.ListInbox(ctx, o.DB, "default", "ana", outbox.All, brief, 1)
	require.NoError(t, err)
	require.NotNil(t, items[0].ReadAt)
	first := *items[0].ReadAt
	marked, err = outbox.MarkRead(ctx, o.DB, "default", "ana", question)
	require.NoError(t, err)
	require.True(t, marked, "a read notice is still in the inbox")
	items, err = outbox.ListInbox(ctx, o.DB, "default", "ana", outbox.All, brief, 1)
	require.NoError(t, err)
	require.Equal(t, first, *items[0].ReadAt, "marking it again keeps its first mark")
	for _, other := range []struct {
		org string
		id  int64
	}{{"default", forVal}, {"acme", acmes}, {"default", acmes}} {
		marked, err = outbox.MarkRead(ctx, o.DB, other.org, "ana", other.id)
		require.NoError(t, err)
		require.False(t, marked, "notification %d in %s is not ana's", other.id, other.org)
	}
	require.Equal(t, []int64{brief, approval}, o.list(t, "default", "ana", outbox.Unread, 0, 10))
	require.Equal(t, []int64{forVal, approval}, o.list(t, "default", "val", outbox.Unread, 0, 10), "val's are val's own")

	o.Exec(`UPDATE tasks SET status = 'input_required' WHERE id = ?`, o.task)
	require.Equal(t, []int64{question}, o.list(t, "default", "ana", outbox.Waiting, 0, 10),
		"the task now waits for an answer: the question waits, the approval no longer")
	unread, waiting, err = outbox.CountInbox(ctx, o.DB, "default", "ana")
	require.NoError(t, err)
	require.Equal(t, [2]int{2, 1}, [2]int{unread, waiting})

	n, err := outbox.MarkAllRead(ctx, o.DB, "default", "ana", approval)
	require.NoError(t, err)
	require.Equal(t, 1, n, "up to approval: the brief, newer, stays unread")
	require.Equal(t, []int64{brief}, o.list(t, "default", "ana", outbox.Unread, 0, 10))
	n, err = outbox.MarkAllRead(ctx, o.DB, "default", "ana", 0)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Empty(t, o.list(t, "default", "ana", outbox.Unread, 0, 10))
	require.Equal(t, []int64{forVal, approval}, o.list(t, "default", "val", outbox.Unread, 0, 10), "val's stay unread")
	require.Equal(t, []int64{acmes}, o.list(t, "acme", "bo", outbox.Unread, 0, 10), "acme's stay unread")
}

// Recipients answers a notification's head and the people it is addressed
// to (its inbox rows), in order; a notice naming one person has them alone;
// a missing notification answers a nil head and no error.
func TestRecipientsAreTheHeadAndTheInboxRowsOfANotification(t *testing.T) {
	ctx := context.Background()
	o := newInboxOffice(t)
	o.Person("ana", "kim", identity.Approver)
	approval := enqueue(t, o.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: o.task, Title: "t"})
	forVic := enqueue(t, o.DB, outbox.Notification{Kind: outbox.PactUnread, ProjectID: "web", HumanID: "vic", Title: "t"})
	acmes := enqueue(t, o.DB, outbox.Notification{Kind: outbox.Deferred, ProjectID: "rocket", Title: "t"})

	head, people, err := outbox.Recipients(ctx, o.DB, approval)
	require.NoError(t, err)
	require.Equal(t, &outbox.Head{ID: approval, OrgID: "default", Kind: outbox.ApprovalNeeded}, head)
	require.Equal(t, []string{"ana", "kim", "val"}, people)

	head, people, err = outbox.Recipients(ctx, o.DB, forVic)
	require.NoError(t, err)
	require.Equal(t, &outbox.Head{ID: forVic, OrgID: "default", Kind: outbox.PactUnread, HumanID: "vic"}, head)
	require.Equal(t, []string{"vic"}, people)

	head, people, err = outbox.Recipients(ctx, o.DB, acmes)
	require.NoError(t, err)
	require.Equal(t, "acme", head.OrgID)
	require.Equal(t, []string{"bo"}, people)

	head, people, err = outbox.Recipients(ctx, o.DB, acmes+1000)
	require.NoError(t, err)
	require.Nil(t, head)
	require.Nil(t, people)
}

// Each audience reaches the people docs/notifications.md's table names for
// it, read back through Recipients: with helper (vic's agent in web,
// registered by val, who issued its root mandate) beside code-web (ana's,
// which posted the task).
func TestEachAudienceReachesThePeopleItNames(t *testing.T) {
	ctx := context.Background()
	o := newInboxOffice(t)
	o.Agent("val", kerneltest.AgentInput{ID: "helper", Client: "code", Projects: []string{"web"}, Owner: "vic"})
	for _, c := range []struct {
		why  string
		n    outbox.Notification
		want []string
	}{
		{"the deciders", outbox.Notification{Kind: outbox.ApprovalNeeded, TaskID: o.task}, []string{"ana", "val"}},
		{"the deciders among the agents' owners", outbox.Notification{Kind: outbox.Question, TaskID: o.task,
			AgentID: "helper"}, []string{"ana"}},
		{"the agent's owner", outbox.Notification{Kind: outbox.AwaitingSession, TaskID: o.task, AgentID: "helper"},
			[]string{"vic"}},
		{"no agent: the deciders", outbox.Notification{Kind: outbox.AwaitingSession, TaskID: o.task},
			[]string{"ana", "val"}},
		{"the owners of the poster and of the agent", outbox.Notification{Kind: outbox.TaskClosed, TaskID: o.task,
			AgentID: "helper"}, []string{"ana", "vic"}},
		{"the owners and the owners of the project's agents", outbox.Notification{Kind: outbox.Brief},
			[]string{"ana", "vic"}},
		{"the agent's owner and its root's issuer", outbox.Notification{Kind: outbox.Expiring, AgentID: "helper"},
			[]string{"val", "vic"}},
		{"naming nobody: the owners", outbox.Notification{Kind: outbox.PactStuck, AgentID: "helper"}, []string{"ana"}},
	} {
		c.n.ProjectID, c.n.Title = "web", "t"
		_, people, err := outbox.Recipients(ctx, o.DB, enqueue(t, o.DB, c.n))
		require.NoError(t, err)
		require.Equal(t, c.want, people, "%s: %s", c.n.Kind, c.why)
	}
}
