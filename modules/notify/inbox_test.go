package notify_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
)

// inboxBoard is the notify module behind the Admin API with people of
// every kind a notice can concern, in the default organization: ana
// (owner), val and kim (approvers), vic (viewer), dan (an approver,
// disabled, who is told and reads it once enabled again); bo owns acme, which has its own project rocket. code-web
// (ana's, in web) posted task; helper (vic's, in web) holds a root from
// ana and one from val; api-bot (kim's) works in api only.
type inboxBoard struct {
	*kerneltest.World
	task string
}

func newInboxBoard(t *testing.T) *inboxBoard {
	t.Helper()
	return newInboxBoardWith(t, notify.New(notify.Options{}))
}

// newInboxBoardWith is newInboxBoard with the notify module m.
func newInboxBoardWith(t *testing.T, m *notify.Module) *inboxBoard {
	t.Helper()
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true}, m)
	w.Office()
	w.Person("ana", "kim", identity.Approver)
	w.Person("ana", "dan", identity.Approver)
	w.Org("acme", "bo")
	w.Project("bo", "rocket", false)
	r := w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	w.Agent("ana", kerneltest.AgentInput{ID: "helper", Client: "code", Projects: []string{"web"}, Owner: "vic"})
	w.Agent("ana", kerneltest.AgentInput{ID: "api-bot", Client: "code", Projects: []string{"api"}, Owner: "kim"})
	w.Exec(`INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth, expires_at, signature)
		VALUES (gen_random_uuid(), 'human', 'val', 'helper', '{task.work}', 1, 0, now() + interval '1 day', 'sig')`)
	w.Exec(`UPDATE humans SET disabled_at = now() WHERE id = 'dan'`)
	b := &inboxBoard{World: w}
	require.NoError(t, w.DB.NewRaw(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
		VALUES (gen_random_uuid(), 'web', 'Deploy', 'code-web', ?, 'submitted') RETURNING id::text`,
		r.RootMandateID.String()).Scan(context.Background(), &b.task))
	return b
}

// addressed is who notification id reached: its inbox rows.
func (b *inboxBoard) addressed(t *testing.T, id int64) []string {
	t.Helper()
	people := []string{}
	require.NoError(t, b.DB.NewRaw(`SELECT human_id FROM inbox WHERE notification_id = ? ORDER BY human_id`, id).
		Scan(context.Background(), &people))
	return people
}

// A notice of each kind (the population: outbox.Kinds) reaches exactly
// the people its kind is addressed to, once each, and nobody else: not a
// person of another organization.
func TestANoticeOfEachKindReachesExactlyThePeopleItConcerns(t *testing.T) {
	b := newInboxBoard(t)
	deciders := []string{"ana", "dan", "kim", "val"}
	// Whom a notice about task (posted by code-web), raised by or about
	// helper, reaches; and one naming vic alone.
	want := map[outbox.Kind]struct{ about, forVic []string }{
		outbox.ApprovalNeeded:  {deciders, []string{"vic"}},
		outbox.Deferred:        {deciders, []string{"vic"}},
		outbox.PactDecision:    {deciders, []string{"vic"}},
		outbox.Question:        {[]string{"ana"}, []string{"vic"}}, // the deciders among the agents' owners
		outbox.AwaitingSession: {[]string{"vic"}, []string{"vic"}},
		outbox.TaskClosed:      {[]string{"ana", "vic"}, []string{"vic"}},
		outbox.Message:         {[]string{"ana", "vic"}, []string{"vic"}},
		outbox.Brief:           {[]string{"ana", "vic"}, []string{"vic"}}, // kim's agent is not in web
		outbox.Expiring:        {[]string{"ana", "val", "vic"}, []string{"vic"}},
		outbox.Expired:         {[]string{"ana", "val", "vic"}, []string{"vic"}},
		outbox.PactUnread:      {[]string{"ana"}, []string{"vic"}}, // naming nobody: the owners
		outbox.PactStuck:       {[]string{"ana"}, []string{"vic"}},
	}
	for _, k := range outbox.Kinds() {
		t.Run(string(k), func(t *testing.T) {
			w, ok := want[k]
			require.True(t, ok, "kind %s is not classified here: say whom it reaches (outbox.AddressedTo, docs/notifications.md)", k)
			_, ok = outbox.AddressedTo(k)
			require.True(t, ok, "kind %s has no audience", k)
			n := outbox.Notification{Kind: k, ProjectID: "web", TaskID: b.task, AgentID: "helper", Title: "t"}
			require.Equal(t, w.about, b.addressed(t, enqueue(t, b.DB, n)))
			n.HumanID = "vic"
			require.Equal(t, w.forVic, b.addressed(t, enqueue(t, b.DB, n)), "a notice naming one person reaches them alone")
			n.HumanID = "bo"
			require.Empty(t, b.addressed(t, enqueue(t, b.DB, n)), "a person of another organization is never told")
			n = outbox.Notification{Kind: k, ProjectID: "rocket", Title: "t"}
			require.NotContains(t, b.addressed(t, enqueue(t, b.DB, n)), "ana", "acme's notice reaches ana")
		})
	}
	require.Len(t, want, len(outbox.Kinds()), "a kind here that the outbox no longer has")
}

// Fallbacks: a question none of whose agents' owners can answer goes to
// every decider; a notice about an agent's session with no agent, too.
func TestAQuestionNobodyConcernedCanAnswerGoesToTheDeciders(t *testing.T) {
	b := newInboxBoard(t)
	require.Equal(t, []string{"ana", "dan", "kim", "val"},
		b.addressed(t, enqueue(t, b.DB, outbox.Notification{Kind: outbox.Question, ProjectID: "web", AgentID: "helper", Title: "t"})))
	require.Equal(t, []string{"ana", "dan", "kim", "val"},
		b.addressed(t, enqueue(t, b.DB, outbox.Notification{Kind: outbox.AwaitingSession, ProjectID: "web", Title: "t"})))
	require.Equal(t, []string{"kim"},
		b.addressed(t, enqueue(t, b.DB, outbox.Notification{Kind: outbox.Question, ProjectID: "api", AgentID: "api-bot", Title: "t"})))
}

func ids(t *testing.T, r kerneltest.Reply) []int64 {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	out := []int64{}
	for _, it := range r.Body["items"].([]any) {
		out = append(out, int64(it.(map[string]any)["id"].(float64)))
	}
	return out
}

func counts(t *testing.T, b *inboxBoard, person string) (unread, waiting int) {
	t.Helper()
	r := b.Admin(person, "GET", "/me/notifications/counts", "")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	return int(r.Body["unread"].(float64)), int(r.Body["waiting"].(float64))
}

// Over the Admin API each person reads their own inbox: read and unread
// are kept per person, "waiting" holds what asks them to act while its
// cause is open, pages follow next, and another organization's person
// sees and marks nothing of it.
func TestEachPersonReadsAndMarksTheirOwnInbox(t *testing.T) {
	b := newInboxBoard(t)
	approval := enqueue(t, b.DB, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", TaskID: b.task, Title: "approve"})
	closed := enqueue(t, b.DB, outbox.Notification{Kind: outbox.TaskClosed, ProjectID: "web", TaskID: b.task, AgentID: "helper", Title: "done"})
	b.Exec(`UPDATE tasks SET status = 'auth_required' WHERE id = ?`, b.task)

	require.Equal(t, []int64{closed, approval}, ids(t, b.Admin("ana", "GET", "/me/notifications", "")), "newest first")
	require.Equal(t, []int64{closed}, ids(t, b.Admin("vic", "GET", "/me/notifications", "")))
	require.Equal(t, []int64{approval}, ids(t, b.Admin("val", "GET", "/me/notifications?filter=waiting", "")))
	u, wt := counts(t, b, "ana")
	require.Equal(t, [2]int{2, 1}, [2]int{u, wt})

	// Marking read is per person.
	r := b.Admin("ana", "POST", fmt.Sprintf("/me/notifications/%d/read", approval), "")
	require.Equal(t, http.StatusNoContent, r.Status, r.Raw)
	require.Equal(t, []int64{closed}, ids(t, b.Admin("ana", "GET", "/me/notifications?filter=unread", "")))
	require.Equal(t, []int64{approval}, ids(t, b.Admin("val", "GET", "/me/notifications?filter=unread", "")), "val's mark is val's")
	require.Equal(t, []int64{approval}, ids(t, b.Admin("ana", "GET", "/me/notifications?filter=waiting", "")),
		"read, it still waits while the task does")

	// Another's notification, or another organization's, is not found.
	for _, who := range []string{"vic", "bo"} {
		r = b.Admin(who, "POST", fmt.Sprintf("/me/notifications/%d/read", approval), "")
		require.Equal(t, http.StatusNotFound, r.Status, r.Raw)
		require.Empty(t, ids(t, b.Admin("bo", "GET", "/me/notifications?filter=all", "")))
	}
	u, _ = counts(t, b, "bo")
	require.Zero(t, u)

	// Once the task no longer waits, neither does its notice.
	b.Exec(`UPDATE tasks SET status = 'submitted' WHERE id = ?`, b.task)
	require.Empty(t, ids(t, b.Admin("ana", "GET", "/me/notifications?filter=waiting", "")))

	// All, up to what the person saw: a later notice stays unread.
	later := enqueue(t, b.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", TaskID: b.task, Title: "later"})
	r = b.Admin("ana", "POST", "/me/notifications/read", fmt.Sprintf(`{"up_to": %d}`, closed))
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, float64(1), r.Body["marked"])
	require.Equal(t, []int64{later}, ids(t, b.Admin("ana", "GET", "/me/notifications?filter=unread", "")))
	r = b.Admin("ana", "POST", "/me/notifications/read", "")
	require.Equal(t, float64(1), r.Body["marked"], r.Raw)
	u, _ = counts(t, b, "ana")
	require.Zero(t, u)
	u, _ = counts(t, b, "val")
	require.Equal(t, 1, u, "ana's marks leave val's inbox as it was")

	// Pages.
	for i := range 3 {
		enqueue(t, b.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", TaskID: b.task, Title: fmt.Sprint("m", i)})
	}
	first := b.Admin("ana", "GET", "/me/notifications?limit=2", "")
	got := ids(t, first)
	require.Len(t, got, 2)
	next := int64(first.Body["next"].(float64))
	rest := ids(t, b.Admin("ana", "GET", fmt.Sprintf("/me/notifications?limit=2&before=%d", next), ""))
	all := ids(t, b.Admin("ana", "GET", "/me/notifications", ""))
	require.Equal(t, all[:4], slices.Concat(got, rest))
}
