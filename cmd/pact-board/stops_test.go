package main

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/modules/console/consoletest"
)

// A stop reaches every channel (docs/security.md, "A stop reaches every
// channel"; SEC-025). The channels are the kernel's registry
// (kernel.Channels: the ones modules register and one per tool with a Wait
// phase), the stops kernel.Stops of each channel's audience. For every pair
// the test opens the channel, applies the stop through the path a person
// or an operator takes, then makes new content for the stopped principal,
// and requires that none of it reaches the channel and that an open
// connection ends (or the next request is refused) within 2 seconds of the
// stop. A channel without a driver here fails the test: a new channel is
// tested by construction, or says it is not.

// stopBound is how soon after a stop an open connection must end.
const stopBound = 2 * time.Second

// stopWorld is the whole board (boardModules) with the events hub, its
// workers running and the real webhook plugin delivering to recv.
type stopWorld struct {
	*kerneltest.World
	recv *stopReceiver
	// n numbers the principals each pair makes.
	n int
}

func newStopWorld(t *testing.T) *stopWorld {
	recv := newStopReceiver(t)
	host := stopWebhookPlugin(t, map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1", "SSL_CERT_FILE": recv.caFile})
	w := kerneltest.New(t, kerneltest.Options{Events: true, Modules: func(w *kerneltest.World) []kernel.Module {
		return boardModules(w.Mandates.Keys(), nil, host, nil, 0)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Kernel.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	w.Person("", "ana", identity.Owner)
	w.Project("ana", "web", false)
	w.Project("ana", "ops", false)
	w.Agent("ana", kerneltest.AgentInput{ID: "ctl", Client: "gemini", Projects: []string{"web", "ops"}, Scope: agentScope})
	// The organization's notifications go to recv's /notify.
	r := w.Admin("ana", "POST", "/destinations", fmt.Sprintf(`{"notifier":"webhook","url":%q}`, recv.URL+"/notify"))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	return &stopWorld{World: w, recv: recv}
}

// agentScope is what every agent here is given.
var agentScope = []string{"pact.read@project:web", "pact.write@project:web", "task.read@project:web", "task.post@project:web",
	"task.work@project:web", "pact.read@project:ops", "task.read@project:ops"}

// subject is the stopped agent of one pair: its mandate (the one it names
// in calls), a pact of ana's it sits in, and a task whose messages reach it.
type subject struct {
	agent, mandate, pact, task string
	// lead holds the root above mandate for the revoke-link stop.
	lead, leadRoot string
}

// newSubject registers a fresh agent of client in web and ops; for
// revoke-link its authority is a link delegated by a lead agent, its own
// root revoked.
func (s *stopWorld) newSubject(t *testing.T, stop kernel.Stop, client string) *subject {
	s.n++
	sub := &subject{agent: fmt.Sprintf("x%d", s.n)}
	if client == "" {
		client = "gemini"
	}
	s.Agent("ana", kerneltest.AgentInput{ID: sub.agent, Client: client, Projects: []string{"web", "ops"}, Scope: agentScope})
	sub.mandate = s.Root(sub.agent)
	if stop == kernel.StopRevokeLink {
		sub.lead = fmt.Sprintf("lead%d", s.n)
		s.Agent("ana", kerneltest.AgentInput{ID: sub.lead, Client: "gemini", Projects: []string{"web", "ops"}, Scope: agentScope})
		sub.leadRoot = s.Mandate("ana", sub.lead, agentScope...)
		require.NoError(t, s.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			chain, err := s.Mandates.Verify(ctx, tx, sub.leadRoot, sub.lead)
			if err != nil {
				return err
			}
			child, err := s.Mandates.IssueChild(ctx, tx, chain, mandate.ChildInput{Holder: sub.agent, Scope: agentScope})
			if err != nil {
				return err
			}
			sub.mandate = child.ID.String()
			return nil
		}))
		require.Equal(t, http.StatusOK, s.Admin("ana", "POST", "/mandates/"+s.Root(sub.agent)+"/revoke", `{}`).Status)
	}
	// ana's pact in web, with the subject's seat, which it takes.
	out := s.Admin("ana", "POST", "/pacts", fmt.Sprintf(`{"project_id":"web","name":"Stop %d","purpose":"p","prefix":"A",
		"invite":[{"key":"@%s","prefix":"X"}]}`, s.n, sub.agent))
	require.Equal(t, http.StatusOK, out.Status, "%s", out.Raw)
	sub.pact = out.Body["pact_id"].(string)
	t.Cleanup(func() { s.Admin("ana", "POST", "/pacts/"+sub.pact+"/close", `{}`) }) // open pacts are capped per project
	_, err := s.Call(sub.agent, "join_pact", map[string]any{"pact_id": sub.pact, "mandate_id": sub.mandate})
	require.NoError(t, err)
	// A task of another agent's: a person's message on it to the subject
	// reaches the subject whatever the stop did to its own tasks.
	posted, err := s.Call("ctl", "pact_post", map[string]any{"project_id": "web", "title": "Stop " + sub.agent,
		"mandate_id": s.Root("ctl")})
	require.NoError(t, err)
	sub.task = posted["task_id"].(string)
	// An open task would be offered to the next pair's held pact_events.
	t.Cleanup(func() { s.Admin("ana", "POST", "/tasks/"+sub.task+"/cancel", `{}`) })
	return sub
}

// applyStop stops the subject as a person or the operator would.
func (s *stopWorld) applyStop(t *testing.T, sub *subject, stop kernel.Stop) (undo func()) {
	t.Helper()
	admin := func(method, path, body string) {
		t.Helper()
		r := s.Admin("ana", method, path, body)
		require.Equal(t, http.StatusOK, r.Status, "%s %s: %s", method, path, r.Raw)
	}
	switch stop {
	case kernel.StopBan:
		admin("POST", "/agents/"+sub.agent+"/status", `{"status":"banned"}`)
	case kernel.StopPause:
		admin("POST", "/agents/"+sub.agent+"/status", `{"status":"paused"}`)
	case kernel.StopRevokeRoot:
		admin("POST", "/mandates/"+sub.mandate+"/revoke", `{}`)
	case kernel.StopRevokeLink:
		admin("POST", "/mandates/"+sub.leadRoot+"/revoke", `{}`)
	case kernel.StopLeaveProject:
		require.NoError(t, s.SetAgentProjects(sub.agent, "default", []string{"ops"}))
	case kernel.StopOrgHalt:
		admin("POST", "/kill-switch", `{"halted":true}`)
		return func() { admin("POST", "/kill-switch", `{"halted":false}`) }
	case kernel.StopPlatformHalt:
		require.NoError(t, s.Identity.SetPlatformHalted(context.Background(), s.DB, true))
		return func() { require.NoError(t, s.Identity.SetPlatformHalted(context.Background(), s.DB, false)) }
	default:
		t.Fatalf("no way to apply the stop %q to an agent: add one to applyStop", stop)
	}
	return func() {}
}

// newContent writes, as ana, what would reach the subject on every agent
// channel: a pact message and a message on its task, both saying word.
func (s *stopWorld) newContent(t *testing.T, sub *subject, stop kernel.Stop, word string) {
	t.Helper()
	r := s.Admin("ana", "POST", "/pacts/"+sub.pact+"/messages", fmt.Sprintf(`{"body":%q}`, word))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	r = s.Admin("ana", "POST", "/tasks/"+sub.task+"/message", fmt.Sprintf(`{"body":%q,"to":%q}`, word, sub.agent))
	if r.Body["error"] == "agent_unknown" {
		// Banned, or no longer in the task's project: the board takes no
		// message for it, so there is nothing to hand.
		t.Logf("%s: a message to the subject is refused: %s", stop, r.Body["message"])
		return
	}
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
}

// An agentDriver opens one channel for the subject before the stop; its
// check runs after the stop and the content that followed it.
type agentDriver func(t *testing.T, s *stopWorld, sub *subject) (check func(t *testing.T, stopped time.Time, word string))

// subjectClients are the clients a channel serves, where it serves one
// only; any other channel's subject is a Gemini CLI agent.
var subjectClients = map[string]string{"a2a": "a2a", "a2a-push": "a2a"}

func agentDrivers() map[string]agentDriver {
	return map[string]agentDriver{
		"a2a":             driveA2A,
		"a2a-push":        drivePush,
		"pact-stream":     driveStream,
		"pact-webhook":    driveWebhook,
		"hooks":           driveHooks,
		"mcp:pact_wait":   driveHeld("pact_wait"),
		"mcp:pact_events": driveHeld("pact_events"),
	}
}

func TestAStopReachesEveryChannel(t *testing.T) {
	s := newStopWorld(t)
	channels := s.Kernel.Channels()
	drivers, persons := agentDrivers(), personDrivers()
	var names []string
	for _, c := range channels {
		names = append(names, c.Name)
		if c.Audience == kernel.PersonAudience {
			drive, ok := persons[c.Name]
			require.True(t, ok, "channel %q has no driver in stops_test.go: add one, so that every stop is shown to reach it", c.Name)
			s.personPairs(t, c, drive)
			continue
		}
		drive, ok := drivers[c.Name]
		require.True(t, ok, "channel %q has no driver in stops_test.go: add one, so that every stop is shown to reach it", c.Name)
		eachPair(t, c, func(t *testing.T, stop kernel.Stop, content bool) {
			sub := s.newSubject(t, stop, subjectClients[c.Name])
			check := drive(t, s, sub)
			undo := s.applyStop(t, sub, stop)
			stopped := time.Now()
			defer undo()
			word := ""
			if content {
				word = "after-" + sub.agent
				s.newContent(t, sub, stop, word)
			}
			check(t, stopped, word)
		})
	}
	for name := range drivers {
		require.Contains(t, names, name, "a driver for %q, which is no registered channel", name)
	}
	for name := range persons {
		require.Contains(t, names, name, "a driver for %q, which is no registered channel", name)
	}
}

// person is the stopped person of one pair, signed in to the console.
type person struct {
	id      string
	session *consoletest.Session
}

// A personDriver opens one of a person's channels before the stop.
type personDriver func(t *testing.T, s *stopWorld, p *person) (check func(t *testing.T, stopped time.Time, word string))

func personDrivers() map[string]personDriver {
	return map[string]personDriver{
		"console-live":  driveLive,
		"notifications": driveNotifications,
	}
}

// eachPair runs pair for every stop of c's audience that applies to c,
// twice: once with nothing written after the stop (the stop alone must end
// an open connection), once with content written at once (none of it may
// get through before the channel ends).
func eachPair(t *testing.T, c kernel.Channel, pair func(t *testing.T, stop kernel.Stop, content bool)) {
	for _, stop := range kernel.Stops(c.Audience) {
		if !c.Applies(stop) {
			t.Logf("%s: %s does not apply: %s", c.Name, stop, c.Exempt[stop])
			continue
		}
		for _, phase := range []string{"ends", "nothing-new"} {
			t.Run(c.Name+"/"+string(stop)+"/"+phase, func(t *testing.T) { pair(t, stop, phase == "nothing-new") })
		}
	}
}

// personPairs runs every stop of a person on channel c.
func (s *stopWorld) personPairs(t *testing.T, c kernel.Channel, drive personDriver) {
	eachPair(t, c, func(t *testing.T, stop kernel.Stop, content bool) {
		s.n++
		p := &person{id: fmt.Sprintf("p%d", s.n)}
		s.Person("ana", p.id, identity.Approver)
		p.session = consoletest.SignIn(t, s.DB, s.URL, p.id)
		check := drive(t, s, p)
		switch stop {
		case kernel.StopPersonDisabled:
			r := s.Admin("ana", "PATCH", "/humans/"+p.id, `{"disabled":true}`)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		case kernel.StopSignOut:
			p.session.SignOut(t)
		default:
			t.Fatalf("no way to apply the stop %q to a person: add one", stop)
		}
		stopped := time.Now()
		word := ""
		if content {
			word = "after-" + p.id
			s.notifyPerson(t, p.id, word)
		}
		check(t, stopped, word)
	})
}

// notifyPerson raises a question for person id, titled word: what the
// live stream and the organization's destinations carry.
func (s *stopWorld) notifyPerson(t *testing.T, id, word string) int64 {
	t.Helper()
	n, err := outbox.Enqueue(context.Background(), s.DB, outbox.Notification{Kind: outbox.Question, ProjectID: "web",
		HumanID: id, Title: word})
	require.NoError(t, err)
	return n
}

// driveLive opens the person's live stream; after the stop it must end
// within the bound, carrying nothing.
func driveLive(t *testing.T, s *stopWorld, p *person) func(*testing.T, time.Time, string) {
	live := p.session.Live(t)
	return func(t *testing.T, stopped time.Time, _ string) {
		ended, got := live.Ended(time.Until(stopped.Add(stopBound)))
		require.True(t, ended, "the live stream was still open %s after the stop", stopBound)
		require.Empty(t, got, "the live stream carried events after the stop")
	}
}

// driveNotifications: a notification for the person reaches the
// organization's destination before the stop; one raised after it is
// set aside, never sent.
func driveNotifications(t *testing.T, s *stopWorld, p *person) func(*testing.T, time.Time, string) {
	s.notifyPerson(t, p.id, "before-"+p.id)
	require.Eventually(t, func() bool { return s.recv.has("notify", "before-"+p.id) }, 45*time.Second, 20*time.Millisecond,
		"a notification for the person reaches the destination before the stop")
	return func(t *testing.T, _ time.Time, word string) {
		if word == "" {
			return // nothing is held open: only what is sent after the stop counts
		}
		require.Eventually(t, func() bool {
			return s.Count(`SELECT count(*) FROM notifications WHERE human_id = ? AND title = ? AND sent_at IS NULL AND dead_at IS NULL`,
				p.id, word) == 0
		}, 45*time.Second, 20*time.Millisecond, "the notification is settled")
		require.False(t, s.recv.has("notify", word), "a notification for the disabled person was sent")
	}
}

// stopReceiver records what each agent's webhook got: a path per agent.
type stopReceiver struct {
	*httptest.Server
	caFile string
	mu     sync.Mutex
	got    map[string][]string
}

func newStopReceiver(t *testing.T) *stopReceiver {
	r := &stopReceiver{got: map[string][]string{}}
	r.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		agent := strings.TrimPrefix(req.URL.Path, "/")
		r.got[agent] = append(r.got[agent], string(body))
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	r.caFile = filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(r.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw}), 0o600))
	return r
}

// has reports whether agent's webhook got a delivery containing word.
func (r *stopReceiver) has(agent, word string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.got[agent], func(b string) bool { return strings.Contains(b, word) })
}

// stopWebhookPlugin builds and starts the real notifier-webhook plugin as
// "webhook".
func stopWebhookPlugin(t *testing.T, env map[string]string) *pluginhost.Host {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "notifier-webhook"), "./plugins/notifier-webhook")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	host, err := pluginhost.New([]pluginhost.Spec{{Name: "webhook", Kind: "notifier", Binary: "notifier-webhook", Env: env}},
		&pluginhost.Options{Dir: dir})
	require.NoError(t, err)
	host.Start()
	t.Cleanup(func() { _ = host.Close() })
	return host
}

// notChannels are the plain routes that push nothing to an agent or a
// person, each with the reason. A route in neither this list nor a
// channel's Routes fails TestEveryRouteThatHandsContentIsAChannel, so a
// new route is classified when it is added.
var notChannels = map[string]string{
	"/": "the mux's fallback: a 404",
	"/a2a/a/{agent}/.well-known/agent-card.json":              "the public A2A agent card: the same for every id, how to call",
	"/.well-known/oauth-protected-resource/mcp/a/{agent}":     "public OAuth metadata of an MCP URL",
	"/.well-known/oauth-protected-resource/mcp/a/{agent}/{$}": "public OAuth metadata of an MCP URL",
	"/.well-known/pact-keys.json":                             "the board's public keys",
	"GET /.well-known/pact-log/keys":                          "the log's public checkpoint keys",
	"GET /.well-known/pact-log/{chain}/checkpoint":            "a signed checkpoint: sizes and hashes, no payloads",
	"GET /.well-known/pact-revocations/{format}":              "public revocation lists",
	"/console/":                  "the console's static files",
	"GET /console":               "a redirect to /console/",
	"/console/auth/":             "unknown sign-in paths: a 404",
	"GET /console/auth/callback": "the OIDC sign-in's callback: makes a session, hands no content",
	"GET /console/auth/local":    "the one-time local sign-in link: makes a session",
	"GET /console/auth/login":    "starts an OIDC sign-in",
	"GET /console/session":       "the session's own person and CSRF token, checked per request",
	"POST /console/auth/logout":  "ends the session",
	"/mcp":                       "the MCP transport: each call passes the kernel's gate; its held calls are the mcp:<tool> channels",
	"/mcp/":                      "as /mcp",
	"/mcp/a/{agent}":             "as /mcp",
	"/mcp/a/{agent}/{$}":         "as /mcp",
	"GET /healthz":               "liveness",
	"GET /readyz":                "readiness",
	"POST /connect":              "redeems a one-time setup code: answered once, the code spent",
}

// TestEveryRouteThatHandsContentIsAChannel derives the surfaces from the
// router and the OpenAPI document: every plain route is a registered
// channel's or says in notChannels why it is none, and every Admin API
// operation that streams (text/event-stream) is a channel's.
func TestEveryRouteThatHandsContentIsAChannel(t *testing.T) {
	s := newStopWorld(t)
	routes, ops := map[string]string{}, map[string]string{}
	for _, c := range s.Kernel.Channels() {
		for _, r := range c.Routes {
			routes[r] = c.Name
		}
		for _, o := range c.Operations {
			ops[o] = c.Name
		}
	}
	for _, r := range s.Kernel.Routes() {
		if strings.Contains(r, kernel.AdminPrefix+"/") || strings.HasSuffix(r, kernel.AdminPrefix) {
			continue // Admin API operations: below, from the document
		}
		_, channel := routes[r]
		why, classified := notChannels[r]
		require.True(t, channel || classified, "route %q is no channel's and not in notChannels: register it as a channel "+
			"(kernel.Host.Channel) or say why it pushes nothing", r)
		require.False(t, channel && classified, "route %q is channel %s's and also in notChannels (%s)", r, routes[r], why)
	}
	doc := s.Kernel.OpenAPI()
	for path, item := range doc.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			for _, resp := range op.Responses {
				if _, streams := resp.Content["text/event-stream"]; streams {
					require.Contains(t, ops, op.OperationID, "operation %s (%s) streams but is no channel's", op.OperationID, path)
				}
			}
		}
	}
	require.NotEmpty(t, ops, "the console's live stream is a channel")
}
