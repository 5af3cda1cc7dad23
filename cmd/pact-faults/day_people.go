package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/modules/console"
)

// The people of the day: approvers signed in to the console, each on a
// board of its own, who hold the console's live stream and answer what
// needs them through the Admin API as the console does (docs/console.md,
// "The live stream"): on a needs-you event, the deferred tasks of their
// projects are resumed with an answer, and the open decisions of their
// projects' pacts are answered. Person i looks after the projects whose
// number is i modulo the people, so two people never answer the same thing.

// dayPerson is one signed-in person of the day.
type dayPerson struct {
	id       string
	base     string
	session  string // the Cookie header
	csrf     string
	projects map[string]bool
	http     *http.Client
}

// seatPeople adds o.people approvers and signs each in to the console on
// a board (through a local sign-in link, as one printed at start is).
func (d *dayRun) seatPeople(ctx context.Context) error {
	for i := range d.o.people {
		id := fmt.Sprintf("%sperson-%02d", d.prefix, i)
		if _, err := d.s.ident.AddHuman(ctx, owner, identity.HumanInput{ID: id, Name: "Person " + fmt.Sprint(i),
			Role: identity.Approver}); err != nil {
			return fmt.Errorf("add %s: %w", id, err)
		}
		p := &dayPerson{id: id, base: d.s.boards[i%len(d.s.boards)].url, projects: map[string]bool{},
			http: &http.Client{Timeout: callTimeout, CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			}}}
		for n := i; n < d.o.projects; n += d.o.people {
			p.projects[d.projectID(n)] = true
		}
		if err := p.signIn(ctx, d); err != nil {
			return fmt.Errorf("sign %s in: %w", id, err)
		}
		d.people = append(d.people, p)
	}
	return nil
}

// signIn follows a local sign-in link and reads the session's CSRF token.
func (p *dayPerson) signIn(ctx context.Context, d *dayRun) error {
	link, err := console.LocalLink(ctx, d.s.db, p.base, p.id, time.Now())
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return err
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == console.CookieName {
			p.session = c.Name + "=" + c.Value
		}
	}
	if p.session == "" {
		return fmt.Errorf("the local link answered %d without a session", resp.StatusCode)
	}
	var s struct {
		CSRF string `json:"csrf"`
	}
	if status, err := p.do(ctx, http.MethodGet, "/console/session", nil, &s); err != nil || s.CSRF == "" {
		return fmt.Errorf("GET /console/session: %d %v", status, err)
	}
	p.csrf = s.CSRF
	return nil
}

// do sends an Admin API request as the person and decodes the answer into
// out (when not nil); a status other than 2xx is an error naming it.
func (p *dayPerson) do(ctx context.Context, method, path string, body, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Cookie", p.session)
	req.Header.Set(kernel.CSRFHeader, p.csrf)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(raw, out)
	}
	return resp.StatusCode, nil
}

// timed is do, its latency recorded under what ("console: …"); a refusal
// is recorded by its status.
func (p *dayPerson) timed(ctx context.Context, st *stats, what, method, path string, body, out any) error {
	start := time.Now()
	status, err := p.do(ctx, method, path, body, out)
	if ctx.Err() == nil {
		code := "ok"
		if err != nil {
			code = fmt.Sprintf("http_%d", status)
		}
		st.record(what, time.Since(start), code)
	}
	return err
}

// attend is a person's day: the live stream held, and on each needs-you
// event (and when the stream opens) what waits for them answered. A stream
// the board ends is opened again.
func (d *dayRun) attend(ctx context.Context, p *dayPerson) {
	for ctx.Err() == nil {
		if err := d.listen(ctx, p); err != nil && ctx.Err() == nil {
			d.problem("%s: the live stream: %v", p.id, err)
			sleep(ctx, time.Second)
		}
	}
}

// listen holds one live stream until it ends, answering on each event.
func (d *dayRun) listen(ctx context.Context, p *dayPerson) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/admin/api/live", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Cookie", p.session)
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /admin/api/live: %d", resp.StatusCode)
	}
	events := make(chan struct{}, 1)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: needs-you" {
				select {
				case events <- struct{}{}:
				default: // one answering round covers every event before it
				}
			}
		}
	}()
	d.answerWaiting(ctx, p)
	for range events {
		d.answerWaiting(ctx, p)
	}
	return nil
}

// answerWaiting resumes the deferred tasks of the person's projects with
// an answer and answers their pacts' open decisions.
func (d *dayRun) answerWaiting(ctx context.Context, p *dayPerson) {
	var tasks struct {
		Tasks []struct {
			ID        string `json:"id"`
			ProjectID string `json:"project_id"`
		} `json:"tasks"`
	}
	if err := p.timed(ctx, d.st, "console: deferred", http.MethodGet, "/admin/api/tasks?deferred=true", nil, &tasks); err != nil {
		d.peopleProblem(ctx, p, err)
	}
	for _, t := range tasks.Tasks {
		if !p.projects[t.ProjectID] {
			continue
		}
		err := p.timed(ctx, d.st, "console: resume", http.MethodPost, "/admin/api/tasks/"+url.PathEscape(t.ID)+"/resume",
			map[string]any{"answer": "Go ahead."}, nil)
		if err != nil {
			d.peopleProblem(ctx, p, err)
			continue
		}
		d.resumed(t.ID, time.Now())
	}
	var questions struct {
		Decisions []struct {
			ID        string   `json:"id"`
			ProjectID string   `json:"project_id"`
			Options   []string `json:"options"`
		} `json:"decisions"`
	}
	if err := p.timed(ctx, d.st, "console: decisions", http.MethodGet, "/admin/api/pact-decisions", nil, &questions); err != nil {
		d.peopleProblem(ctx, p, err)
	}
	for _, q := range questions.Decisions {
		if !p.projects[q.ProjectID] || len(q.Options) == 0 {
			continue
		}
		err := p.timed(ctx, d.st, "console: answer", http.MethodPut, "/admin/api/pact-decisions/"+url.PathEscape(q.ID)+"/answer",
			map[string]any{"choice": q.Options[0]}, nil)
		if err != nil {
			d.peopleProblem(ctx, p, err)
		}
	}
}

func (d *dayRun) peopleProblem(ctx context.Context, p *dayPerson, err error) {
	if ctx.Err() == nil {
		d.problem("%s: %v", p.id, err)
	}
}

// deferredAt records that the deferral of task id was answered at at.
func (d *dayRun) deferredAt(id string, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deferred[id] = at
}

// resumed records how long task id waited for a person, from its
// deferral's answer to its resumption's.
func (d *dayRun) resumed(id string, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if from, ok := d.deferred[id]; ok {
		d.waits = append(d.waits, at.Sub(from))
		delete(d.deferred, id)
	}
}
