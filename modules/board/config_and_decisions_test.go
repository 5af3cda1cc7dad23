package board_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/board"
)

// configWorld is newWorld with opts (events always on) and the board's
// configuration changed by set before the board registers, as a program
// that builds its boot.Config itself may leave a value zero: the Office
// with code-web and gemini-web on web.
func configWorld(t *testing.T, opts kerneltest.Options, set func(*boot.Config)) *world {
	t.Helper()
	b := board.New()
	opts.Events = true
	opts.Modules = func(kw *kerneltest.World) []kernel.Module {
		if set != nil {
			set(kw.Config) // the kernel's own Config: the board reads it as it registers
		}
		return nil
	}
	w := &world{World: kerneltest.New(t, opts, b), board: b}
	w.Office()
	w.agent("code-web", "code", nil, "web")
	w.agent("gemini-web", "gemini", nil, "web")
	return w
}

// holdEvents makes agent id a holder of pact_events on web behind the
// services' back, so a task that becomes claimable there is offered to it.
func (w *world) holdEvents(id string) {
	w.Exec(`INSERT INTO event_holders (agent_id, projects, holds, until) VALUES (?, '{web}', 1, now() + interval '1 hour')`, id)
}

// offerLease is the lease, in seconds, of the offer of task (-1: none).
func (w *world) offerLease(task string) int {
	w.T.Helper()
	return w.Count(`SELECT coalesce((SELECT extract(epoch FROM lease_until - offered_at)::int FROM task_offers WHERE task_id = ?), -1)`, task)
}

// staleAfterMinutes is the after_minutes of task's task.release_stale entry.
func (w *world) staleAfterMinutes(task string) float64 {
	w.T.Helper()
	var m float64
	require.NoError(w.T, w.DB.NewRaw(`SELECT (p.content->>'after_minutes')::float8 FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'task.release_stale' AND e.task_id = ?`, task).Scan(w.T.Context(), &m))
	return m
}

// silentFor claims a new task as gemini-web, makes its last heartbeat
// ago old, lets code-web list (which releases stale claims) and says
// whether gemini-web still holds it.
func (w *world) silentFor(task, ago string) bool {
	w.T.Helper()
	w.Exec(`UPDATE task_activity SET at = now() - ?::interval WHERE task_id = ?`, ago, task)
	w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})
	return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND assignee = 'gemini-web' AND status = 'working'`, task) == 1
}

// PACT_STALE_MINUTES and PACT_OFFER_LEASE_SECONDS are what the board uses:
// a claim silent for 6 minutes under a 5-minute lease is released, logged
// with after_minutes 5 (one silent for 4 is kept), and an offer waits the
// 45 seconds configured. This proves newService takes a positive configured
// value instead of its defaults (30 minutes, 10 seconds).
func TestConfiguredLeasesApplyToClaimsAndOffers(t *testing.T) {
	w := configWorld(t, kerneltest.Options{Env: map[string]string{"PACT_STALE_MINUTES": "5", "PACT_OFFER_LEASE_SECONDS": "45"}}, nil)
	job := w.post("code-web", "web", "Long job", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": w.Root("gemini-web")})
	require.True(t, w.silentFor(job, "4 minutes"), "4 minutes of silence is within a 5-minute lease")
	require.False(t, w.silentFor(job, "6 minutes"), "6 minutes of silence is past a 5-minute lease")
	require.Equal(t, 5.0, w.staleAfterMinutes(job))

	w.holdEvents("holder-1")
	offered := w.post("code-web", "web", "Offered", nil)
	require.Equal(t, 45, w.offerLease(offered), "the offer waits PACT_OFFER_LEASE_SECONDS")
}

// A configuration that leaves the claim lease and the offer lease zero (a
// boot.Config built by hand) keeps the board's defaults rather than a lease
// of nothing: a claim silent for 29 minutes is kept, one silent for 31 is
// released with after_minutes 30, and an offer waits 10 seconds.
func TestLeasesLeftZeroInTheConfigKeepTheirDefaults(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.StaleAfter, c.OfferLease = 0, 0 })
	job := w.post("code-web", "web", "Long job", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": w.Root("gemini-web")})
	require.True(t, w.silentFor(job, "29 minutes"), "29 minutes of silence is within the default 30-minute lease")
	require.False(t, w.silentFor(job, "31 minutes"), "31 minutes of silence is past it")
	require.Equal(t, 30.0, w.staleAfterMinutes(job))

	w.holdEvents("holder-1")
	offered := w.post("code-web", "web", "Offered", nil)
	require.Equal(t, 10, w.offerLease(offered), "the default offer lease")
}

// flakyRemote is a remote A2A agent whose card answers 503 to the first
// down fetches; a message sent to it comes back completed at once.
type flakyRemote struct {
	*httptest.Server
	down  int32
	cards atomic.Int32
}

func newFlakyRemote(t *testing.T, down int32) *flakyRemote {
	r := &flakyRemote{down: down}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet && req.URL.Path == a2a.CardPath {
			if r.cards.Add(1) <= r.down {
				http.Error(w, "down for a moment", http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(painterCard("Flaky painter", r.URL))
			return
		}
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(req.Body).Decode(&call); err != nil || call.Method != a2a.MethodSendMessage {
			http.Error(w, "only SendMessage", http.StatusBadRequest)
			return
		}
		task := a2a.Task{ID: "r-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted},
			Artifacts: []a2a.Artifact{{ArtifactID: "a1", Name: "result", Parts: []a2a.Part{a2a.TextPart("Painted it.")}}}}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": call.ID, "result": a2a.SendMessageResponse{Task: &task}})
	}))
	t.Cleanup(r.Close)
	return r
}

// remoteTask delegates a new task to remote-web, an agent of client
// a2a-remote whose card is remote's, with the board's workers running.
func (w *world) remoteTask(remote *flakyRemote) string {
	w.T.Helper()
	w.agent("remote-web", "a2a-remote", nil, "web")
	w.Exec(`INSERT INTO a2a_remotes (agent_id, org_id, card_url, set_by) VALUES ('remote-web', 'default', ?, 'ana')`,
		remote.URL+a2a.CardPath)
	w.board.DriveRemotes(time.Minute, 100*time.Millisecond)
	runKernel(w.T.(*testing.T), w.Kernel)
	return w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
}

// The board retries an unreachable remote agent for half the configured
// claim lease, then fails the task saying for how long: with a lease of
// 4 s, a remote that never answers fails its task "could not be reached
// for 2s" within seconds. This proves the remote driver takes the
// configured lease, not its 30-minute default (15 minutes of retries).
func TestAnUnreachableRemoteIsRetriedForHalfTheConfiguredStaleLease(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.StaleAfter = 4 * time.Second })
	remote := newFlakyRemote(t, 1<<30)
	task := w.remoteTask(remote)
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'failed'`, task) == 1
	}, 15*time.Second, 50*time.Millisecond, "the remote was given up on after half the lease")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND result->>'text' LIKE '%could not be reached for 2s%'`, task))
	require.GreaterOrEqual(t, remote.cards.Load(), int32(2), "it was retried before it was given up on")
}

// A configuration that leaves the claim lease zero keeps the remote
// driver's 30-minute default, so a remote agent unreachable for a moment
// is retried (after a second) and its task completes, rather than failing
// at the first 503 as a retry window of zero would have it.
func TestARemoteBrieflyUnreachableIsRetriedWhenTheConfigLeavesTheLeaseZero(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.StaleAfter = 0 })
	remote := newFlakyRemote(t, 1)
	task := w.remoteTask(remote)
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status IN ('completed', 'failed')`, task) == 1
	}, 15*time.Second, 50*time.Millisecond)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed'
		AND result->>'text' LIKE '%Painted it.%'`, task), "the second card fetch worked and the task was done")
	require.Equal(t, int32(2), remote.cards.Load())
}

// The reoffer worker warns an operator only when a round fails: rounds
// that offer a task again log nothing, and a round the database refuses
// logs "offers whose lease ran out wait for the next round" with the
// error, while the board runs.
func TestTheReofferWorkerWarnsOnlyWhenARoundFails(t *testing.T) {
	const warning = "offers whose lease ran out wait for the next round"
	logs := &logtest.Buffer{}
	w := configWorld(t, kerneltest.Options{Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Warn})}, nil)
	w.holdEvents("holder-1")
	w.holdEvents("holder-2")
	task := w.post("code-web", "web", "Offered", nil)
	w.Exec(`UPDATE task_offers SET lease_until = now() - interval '1 second' WHERE task_id = ?`, task)
	runKernel(t, w.Kernel)
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM task_offers WHERE task_id = ? AND offers > 1`, task) == 1
	}, 10*time.Second, 20*time.Millisecond, "a round offered the task again")
	time.Sleep(1500 * time.Millisecond) // another round, at least
	require.NotContains(t, logs.String(), warning, "rounds that work log nothing")

	w.Exec(`ALTER TABLE task_offers RENAME TO task_offers_gone`)
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), warning) },
		10*time.Second, 20*time.Millisecond, "a failed round is logged while the board runs")
	require.Contains(t, logs.String(), "task_offers")
}

// squatter registers the channel the board's A2A push notifications need.
type squatter struct{}

func (squatter) Name() string { return "squatter" }
func (squatter) Register(h *kernel.Host) error {
	return h.Channel(kernel.Channel{Name: "a2a-push", Audience: kernel.AgentAudience, Summary: "taken first"})
}

// A board that cannot register its A2A push channel (its name taken)
// refuses to register, naming the channel, instead of starting without
// it.
func TestABoardWhosePushChannelIsTakenFailsToRegister(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true})
	err := w.Kernel.Register(squatter{}, board.New())
	require.ErrorContains(t, err, `channel "a2a-push" is registered twice`)
}

// A tool-use summary keeps a string of exactly maxSummaryText (2000)
// characters whole: only longer ones are clipped with "… [n more
// characters]".
func TestAToolUseSummaryKeepsAStringOfExactlyTheLimitWhole(t *testing.T) {
	w := newWorld(t)
	task := w.post("chat-web", "web", "Write", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": w.Root("code-web")})
	content := strings.Repeat("é", 2000)
	write, err := json.Marshal(map[string]any{"session_id": "s1", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": "a.txt", "content": content}})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"logged": true, "task_id": task}, w.hookOK("code-web", "post-tool-use", string(write), nil))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'hook.post_tool_use' AND e.task_id = ? AND p.content->>'content' = ?`, task, content))
}

// An organization may have exactly MaxApprovalRules (100) approval rules,
// and a rule of exactly 200 characters; one more of either is refused.
func TestApprovalRulesAtTheirLimitsAreAccepted(t *testing.T) {
	w, _ := rulesWorld(t)
	put := func(rules []string) kerneltest.Reply {
		body, err := json.Marshal(map[string]any{"actions": rules})
		require.NoError(t, err)
		return w.Admin("ana", "PUT", "/approval-rules", string(body))
	}
	many := make([]string, board.MaxApprovalRules+1)
	for i := range many {
		many[i] = fmt.Sprintf("deploy.r%03d", i)
	}
	got := put(many[:board.MaxApprovalRules])
	require.Equal(t, 200, got.Status, got.Raw)
	require.Len(t, got.Body["actions"], board.MaxApprovalRules)
	require.Equal(t, http.StatusUnprocessableEntity, put(many).Status, "101 rules")

	long := "deploy." + strings.Repeat("x", 193)
	require.Len(t, long, 200)
	got = put([]string{long})
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, []any{long}, got.Body["actions"])
	require.Equal(t, 400, put([]string{long + "x"}).Status, "201 characters")
}

// A task's title may be edited to exactly 300 characters; 301 is refused.
func TestATitleOf300CharactersCanBeEdited(t *testing.T) {
	w := newWorld(t)
	task := w.post("code-web", "web", "Short", nil)
	title := strings.Repeat("é", 300)
	body, err := json.Marshal(map[string]any{"title": title})
	require.NoError(t, err)
	got := w.Admin("val", "POST", "/tasks/"+task+"/edit", string(body))
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, title, got.Body["title"])
	body, err = json.Marshal(map[string]any{"title": title + "é"})
	require.NoError(t, err)
	require.Equal(t, http.StatusUnprocessableEntity, w.Admin("val", "POST", "/tasks/"+task+"/edit", string(body)).Status)
}

// A person's approve, release and resume each put the task back in front
// of the agents: it is offered to a holder of pact_events on its project
// (none was offered before). A resume's answer also wakes the agent that
// asked (a message event for it on the task), so its pact_wait returns
// the answer at once.
func TestPeoplesDecisionsOfferTheTaskAgainAndWakeTheAsker(t *testing.T) {
	w := newWorld(t)
	deploy := w.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	held := w.post("code-web", "web", "Held", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": held, "mandate_id": w.Root("gemini-web")})
	asked := w.post("chat-web", "web", "Asked", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": asked, "mandate_id": w.Root("code-web")})
	w.OK("code-web", "pact_report", map[string]any{"task_id": asked, "status": "input_required",
		"mandate_id": w.Root("code-web"), "result": "Which region?"})
	w.holdEvents("holder-1")
	for _, id := range []string{deploy, held, asked} {
		require.Equal(t, -1, w.offerLease(id), "not offered yet")
	}
	woken := w.Hub.Subscribe(func(ev events.Event) bool {
		return ev.Kind == events.KindMessage && ev.TaskID == asked && ev.AgentID == "code-web"
	})
	defer woken.Close()

	w.decide("val", deploy, "approve", "")
	require.Equal(t, 10, w.offerLease(deploy), "an approved task is offered")
	w.decide("val", held, "release", "")
	require.Equal(t, 10, w.offerLease(held), "a released task is offered")
	w.decide("val", asked, "resume", `{"answer": "eu-west"}`)
	require.Equal(t, 10, w.offerLease(asked), "a resumed task is offered")
	select {
	case <-woken.C():
	case <-time.After(5 * time.Second):
		t.Fatal("the agent that asked was not woken by the answer")
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ? AND to_agent = 'code-web' AND body = 'eu-west'`, asked))
}

// Canceling a delegated task revokes its delegated mandate: the delegate
// can no longer act under it.
func TestCancelRevokesTheDelegatedMandate(t *testing.T) {
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Delegated",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NOT NULL`, delegated))
	w.decide("ana", id, "cancel", `{"reason": "not needed"}`)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NOT NULL`, delegated),
		"the delegated mandate died with its task")
}
