package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/outbox"
)

// heartbeat is how often an idle live stream sends a comment, so proxies
// keep it open.
const heartbeat = 25 * time.Second

// Event is the data of a live stream's event: one notification addressed
// to the stream's person (core/outbox.AddressedTo), of any kind.
type Event struct {
	Kind string `json:"kind" doc:"The notification's kind (the outbox's kinds)."`
	ID   string `json:"id" doc:"The notification's id."`
}

// Name is the event's name on the stream: needs-you for a kind that asks
// the person to act (outbox.Waits), notice for any other.
func (e Event) Name() string {
	if outbox.Waits(outbox.Kind(e.Kind)) {
		return "needs-you"
	}
	return "notice"
}

// live fans the outbox's new notifications out to the open streams, each
// seeing only its person's organization.
type live struct {
	db     *db.DB
	logger hclog.Logger

	mu   sync.Mutex
	subs map[*stream]struct{}
}

type stream struct {
	org, person string
	c           chan Event
}

func newLive(d *db.DB, logger hclog.Logger) *live {
	return &live{db: d, logger: logger, subs: map[*stream]struct{}{}}
}

func (l *live) subscribe(p *identity.Person) *stream {
	s := &stream{org: p.OrgID, person: p.ID, c: make(chan Event, 16)}
	l.mu.Lock()
	l.subs[s] = struct{}{}
	l.mu.Unlock()
	return s
}

func (l *live) unsubscribe(s *stream) {
	l.mu.Lock()
	delete(l.subs, s)
	l.mu.Unlock()
}

// dispatch reads only the organization, kind and people of notification
// id, and tells the streams of the people it is addressed to.
func (l *live) dispatch(ctx context.Context, payload string) error {
	l.mu.Lock()
	n := len(l.subs)
	l.mu.Unlock()
	id, err := strconv.ParseInt(payload, 10, 64)
	if n == 0 || err != nil {
		return nil
	}
	h, people, err := outbox.Recipients(ctx, l.db, id)
	if err != nil || h == nil {
		return err
	}
	ev := Event{Kind: string(h.Kind), ID: payload}
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := range l.subs {
		if s.org != h.OrgID || !slices.Contains(people, s.person) {
			continue
		}
		select {
		case s.c <- ev:
		default: // a stream that does not read loses events, not the others
		}
	}
	return nil
}

// run LISTENs on the outbox's channel through a connection of its own and
// dispatches every new notification; the kernel restarts it on error.
func (l *live) run(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.db.ListenConfig())
	if err != nil {
		return fmt.Errorf("console: live stream listener: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+outbox.Channel); err != nil {
		return fmt.Errorf("console: live stream listener: %w", err)
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case n != nil:
			if err := l.dispatch(ctx, n.Payload); err != nil {
				l.logger.Warn("live stream: read a notification", "id", n.Payload, "error", err)
			}
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			if err := conn.Ping(ctx); err != nil { // a dead peer would leave us waiting for ever
				return fmt.Errorf("console: live stream listener: %w", err)
			}
		case err != nil:
			return fmt.Errorf("console: live stream listener: %w", err)
		}
	}
}

// registerLive adds GET /admin/api/live.
func (m *Module) registerLive(api huma.API) {
	op := kernel.AdminOp(huma.Operation{OperationID: "console-live", Method: http.MethodGet, Path: "/live",
		Summary: "Stream your notifications as they are made",
		Description: "A Server-Sent Events stream: for every notification addressed to the caller (their inbox, " +
			"GET /me/notifications), of any kind, an event with data `{kind, id}`: `event: needs-you` for a kind that " +
			"asks them to act (approval_needed, deferred, question, pact_decision), `event: notice` for any other; a " +
			"comment every 25 s keeps it open. It shows nothing addressed to anyone else. See docs/console.md.",
		Tags: []string{"console"},
		Responses: map[string]*huma.Response{"200": {Description: "The stream.", Content: map[string]*huma.MediaType{
			"text/event-stream": {Schema: &huma.Schema{Type: huma.TypeString,
				Description: "event: needs-you or notice, data: a JSON object {kind, id}; comments (:) are heartbeats"}}}}},
	}, identity.Viewer)
	huma.Register(api, op, func(ctx context.Context, _ *struct{}) (*huma.StreamResponse, error) {
		p, err := kernel.SignedIn(ctx)
		if err != nil {
			return nil, err
		}
		return &huma.StreamResponse{Body: func(hctx huma.Context) { m.stream(hctx, p) }}, nil
	})
}

// stream writes p's events until the client goes, the board drains, or
// the stream's standing fails: its session (the bearer token or the
// console session it was opened with) or its person (removed, disabled).
// It re-checks them at each heartbeat, on every events stop that concerns
// p, and before writing any event, so a stop raised before an event's
// notification keeps that event off the stream whichever arrives first
// (docs/security.md, finding 8).
func (m *Module) stream(hctx huma.Context, p *identity.Person) {
	ctx := hctx.Context()
	standing := m.standing(p, hctx.Header("Authorization"), hctx.Header("Cookie"))
	stops := m.events.Subscribe(func(ev events.Event) bool { return ev.StopsPerson(p.OrgID, p.ID) })
	defer stops.Close()
	s := m.live.subscribe(p)
	defer m.live.unsubscribe(s)
	// A stop between the gate's check and the subscriptions woke nobody.
	if standing(ctx) != nil {
		return
	}
	hctx.SetHeader("Content-Type", "text/event-stream")
	hctx.SetHeader("X-Accel-Buffering", "no")
	w := hctx.BodyWriter()
	flush := func() error {
		if rw, ok := w.(http.ResponseWriter); ok {
			return http.NewResponseController(rw).Flush()
		}
		return nil
	}
	if _, err := fmt.Fprint(w, ": live\n\n"); err != nil || flush() != nil {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		var out string
		select {
		case <-ctx.Done():
			return
		case <-m.draining:
			return
		case <-stops.C():
		case <-tick.C:
			out = ": heartbeat\n\n"
		case ev := <-s.c:
			out = eventText(ev)
			for more := true; more; { // one check for the events already here
				select {
				case ev := <-s.c:
					out += eventText(ev)
				default:
					more = false
				}
			}
		}
		if err := standing(ctx); err != nil {
			m.logger.Debug("live stream ended: its standing failed", "person", p.ID, "error", err)
			return
		}
		if out == "" {
			continue
		}
		if _, err := fmt.Fprint(w, out); err != nil || flush() != nil {
			return
		}
	}
}

func eventText(ev Event) string {
	data, _ := json.Marshal(ev)
	return fmt.Sprintf("event: %s\ndata: %s\n\n", ev.Name(), data)
}

// standing is the check of a live stream opened as p with these request
// headers: the bearer token must still sign p in (the Admin API's gate:
// an Authorization header wins over the cookie); else the console session
// must still have its record and sign p in, and p must exist and be
// enabled. The console session's access token is not refreshed here: a
// refreshed cookie could not reach a browser mid-stream.
func (m *Module) standing(p *identity.Person, authorization, cookie string) func(context.Context) error {
	return func(ctx context.Context) error {
		var q *identity.Person
		var err error
		if authorization != "" {
			q, err = m.auth.Authenticate(ctx, authorization)
		} else {
			q, err = m.sessionHolder(ctx, cookie)
		}
		if err != nil {
			return err
		}
		if q == nil || q.ID != p.ID {
			return errNoSession
		}
		return nil
	}
}

// sessionHolder is the person a console session's record signs in, who
// must exist and be enabled; unauthorized when the session has ended or
// was signed out, or signs in no person.
func (m *Module) sessionHolder(ctx context.Context, cookie string) (*identity.Person, error) {
	s, rec, err := m.open(ctx, cookie)
	if err != nil {
		return nil, err
	}
	if s == nil || rec.Person == "" {
		return nil, errNoSession
	}
	return m.localPerson(ctx, rec.Person)
}
