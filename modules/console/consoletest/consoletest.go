// Package consoletest opens the console's channels in tests of other
// packages: a signed-in console session (the local sign-in link), its live
// stream GET /admin/api/live, and its sign-out. The stops of a person are
// then the session's SignOut and identity.Service.SetHumanFields with
// Disabled (docs/security.md, issue 29 finding 8). The board must run
// modules/console with local sign-in on (PACT_CONSOLE_LOCAL_SIGNIN, on by
// default in tests), and its kernel must run (Kernel.Run) for the live
// stream's notifications, with an events hub for its stops.
package consoletest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/modules/console"
)

// Session is a signed-in console session: its cookie, as a browser holds
// it, and its CSRF token.
type Session struct {
	Base   string // the board's URL
	Cookie string // the Cookie header: "pact_console=sealed:…"
	CSRF   string
}

// SignIn signs person in to the console at base through a local sign-in
// link stored in d, as a browser following it would.
func SignIn(t testing.TB, d bun.IDB, base, person string) *Session {
	t.Helper()
	link, err := console.LocalLink(context.Background(), d, base, person, time.Now())
	if err != nil {
		t.Fatalf("consoletest: local link: %v", err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(link)
	if err != nil {
		t.Fatalf("consoletest: follow the local link: %v", err)
	}
	resp.Body.Close()
	s := &Session{Base: base}
	for _, c := range resp.Cookies() {
		if c.Name == console.CookieName {
			s.Cookie = c.Name + "=" + c.Value
		}
	}
	if resp.StatusCode != http.StatusFound || s.Cookie == "" {
		t.Fatalf("consoletest: the local link answered %d without a session cookie", resp.StatusCode)
	}
	status, body := s.Do(t, http.MethodGet, "/console/session")
	var got struct {
		CSRF string `json:"csrf"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || got.CSRF == "" {
		t.Fatalf("consoletest: GET /console/session answered %d: %s", status, body)
	}
	s.CSRF = got.CSRF
	return s
}

// Do sends method path with the session's cookie (and its CSRF token) and
// returns the status and body of the answer.
func (s *Session) Do(t testing.TB, method, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.Base+path, nil)
	if err != nil {
		t.Fatalf("consoletest: %v", err)
	}
	req.Header.Set("Cookie", s.Cookie)
	req.Header.Set(kernel.CSRFHeader, s.CSRF)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("consoletest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// SignOut signs the session out (POST /console/auth/logout); its cookie
// is then refused everywhere.
func (s *Session) SignOut(t testing.TB) {
	t.Helper()
	if status, body := s.Do(t, http.MethodPost, "/console/auth/logout"); status != http.StatusNoContent {
		t.Fatalf("consoletest: sign-out answered %d: %s", status, body)
	}
}

// Live opens the session's live stream.
func (s *Session) Live(t testing.TB) *Live {
	t.Helper()
	return OpenLive(t, s.Base, http.Header{"Cookie": {s.Cookie}})
}

// Live is an open GET /admin/api/live: its events (needs-you and notice)
// as they come, closed when the stream ends.
type Live struct {
	// Events carries every event whose name is the one its kind is sent
	// under (console.Event.Name); it is closed when the board ends the
	// stream (or the test does).
	Events <-chan console.Event
}

// OpenLive opens GET /admin/api/live at base with header (a Cookie, or an
// Authorization bearer token), waits until the stream is subscribed (its
// first line), and reads it until it ends or the test does.
func OpenLive(t testing.TB, base string, header http.Header) *Live {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/admin/api/live", nil)
	if err != nil {
		t.Fatalf("consoletest: %v", err)
	}
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("consoletest: open the live stream: %v", err)
	}
	lines := bufio.NewScanner(resp.Body)
	if resp.StatusCode != http.StatusOK || !lines.Scan() || lines.Text() != ": live" {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("consoletest: the live stream answered %d: %s", resp.StatusCode, body)
	}
	out := make(chan console.Event, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		event := ""
		for lines.Scan() {
			line := lines.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev console.Event
				if json.Unmarshal([]byte(data), &ev) == nil && ev.Name() == event {
					out <- ev
				}
			}
		}
	}()
	return &Live{Events: out}
}

// Ended waits up to within for the stream to end and returns whether it
// did, with every event it carried meanwhile.
func (l *Live) Ended(within time.Duration) (bool, []console.Event) {
	var got []console.Event
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-l.Events:
			if !ok {
				return true, got
			}
			got = append(got, ev)
		case <-deadline:
			return false, got
		}
	}
}
