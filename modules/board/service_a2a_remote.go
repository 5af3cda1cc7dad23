package board

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/sdk/errs"
)

// Remote A2A agents (docs/a2a.md, "Remote agents"): what a person names
// for one, and what the board does with each state of the remote task.

// maxRemoteAuthorization bounds the Authorization a remote agent takes.
const maxRemoteAuthorization = 4000

// RemoteInput is what a person names for an agent of client a2a-remote.
type RemoteInput struct {
	// CardURL is the remote agent's card.
	CardURL string
	// Authorization, when set, is the Authorization header it takes
	// ("Bearer …"), sealed at rest; "" keeps the one set before, "-"
	// clears it.
	Authorization string
}

// remotePlace is where agent's sealed Authorization belongs.
func remotePlace(agent string) string { return "a2a-remote:" + agent }

// CheckRemoteCard refuses a card URL the board would not fetch: not an
// absolute http(s) URL (http only with private addresses allowed), or one
// with user info.
func CheckRemoteCard(raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || raw == "" || len(raw) > 2000 || u.Host == "" || u.Opaque != "":
		return errs.E(errs.InvalidRequest, "card_url must be the absolute https:// URL of the remote agent's card, at most 2000 characters")
	case u.User != nil:
		return errs.E(errs.InvalidRequest, "card_url must not carry a user name or password: put the credentials in authorization")
	case u.Scheme == "https", u.Scheme == "http" && allowPrivate:
		return nil
	}
	return errs.E(errs.InvalidRequest, "card_url must use https")
}

// SetRemote names the card of agent, an a2a-remote agent of by's
// organization, and seals its Authorization. The caller has fetched the
// card (FetchCard) and found an A2A 1.0 JSON-RPC interface in it.
// Refusals: not_found (no such agent here), invalid_request (another
// client; a bad URL or authorization).
func (s *Service) SetRemote(ctx context.Context, tx bun.IDB, by Actor, box *seal.Box, agent string, in RemoteInput, allowPrivate bool) error {
	old, err := s.remoteOf(ctx, tx, by, agent)
	if err != nil {
		return err
	}
	if err := CheckRemoteCard(in.CardURL, allowPrivate); err != nil {
		return err
	}
	r := remoteAgent{AgentID: agent, OrgID: by.OrgID, CardURL: in.CardURL}
	switch auth := strings.TrimSpace(in.Authorization); {
	case auth == "-":
	case auth == "":
		if old != nil {
			r.Authorization = old.Authorization
		}
	case checkRemoteAuthorization(auth) != nil:
		return checkRemoteAuthorization(auth)
	default:
		sealed, err := box.Seal(auth, remotePlace(agent))
		if err != nil {
			return err
		}
		r.Authorization = &sealed
	}
	return s.st.setRemote(ctx, tx, r, by.PersonID)
}

// checkRemoteAuthorization refuses what cannot be one header value. The
// admin API bounds it at 4000 characters; a header is bytes, so this bounds
// the bytes (a value of non-ASCII characters can pass the first and not
// this).
func checkRemoteAuthorization(auth string) error {
	if len(auth) > maxRemoteAuthorization || strings.ContainsAny(auth, "\r\n") {
		return errs.E(errs.InvalidRequest, "authorization is one header value of at most %d bytes", maxRemoteAuthorization)
	}
	return nil
}

// remoteOf checks that agent is an a2a-remote agent of by's organization
// and returns the card named for it before (nil when none is). Refusals:
// not_found (no such agent here), invalid_request (another client).
func (s *Service) remoteOf(ctx context.Context, tx bun.IDB, by Actor, agent string) (*remoteAgent, error) {
	a, err := s.ident.GetAgent(ctx, tx, agent, by.OrgID)
	if err != nil || a == nil || a.Status == "banned" {
		if err != nil && errs.CodeOf(err) != errs.NotFound {
			return nil, err
		}
		return nil, errs.E(errs.NotFound, "agent %s does not exist", agent)
	}
	if a.Client != "a2a-remote" {
		return nil, errs.E(errs.InvalidRequest, "agent %s is a %s agent; only an agent of client a2a-remote has a remote card", agent, a.Client)
	}
	return s.st.remote(ctx, tx, agent)
}

// openRemoteAuth is the Authorization header r's remote agent takes ("" for
// none), unsealed.
func openRemoteAuth(box *seal.Box, r *remoteAgent) (string, error) {
	if r == nil || r.Authorization == nil {
		return "", nil
	}
	auth, err := box.Open(*r.Authorization, remotePlace(r.AgentID))
	if err != nil {
		return "", errors.New("its authorization no longer opens: name it again")
	}
	return auth, nil
}

// remoteOutcome is what the board reports for a remote task that stopped
// working: the status, and the result (with its Handoff) or question.
type remoteOutcome struct {
	Status string
	Result any
}

// outcomeOf is the report for remote task t of agent, or ok false while it
// works. A closed task's result carries the artifacts' text and a Handoff:
// the artifact named handoff when the remote made one, else one built from
// what came back; a task asking for input or authorization hands its
// question to people, unless it is the question answered already
// (statusMark answered): a remote that has the answer may still show it
// until it moves on. Everything fits a task's result (MaxTaskResult).
func outcomeOf(t *a2a.Task, agent, answered string) (remoteOutcome, bool) {
	said := partsText(statusParts(t))
	switch t.Status.State {
	case a2a.StateInputRequired, a2a.StateAuthRequired:
		if answered != "" && statusMark(t) == answered {
			return remoteOutcome{}, false
		}
		q := orSay(said, "The remote agent "+agent+" needs more input.")
		if t.Status.State == a2a.StateAuthRequired {
			q = "The remote agent " + agent + " asks for authorization: " + orSay(said, "it gave no detail")
		}
		// A character is at most 6 of JSON (\u0001): a seventh of the result fits.
		return remoteOutcome{Status: inputRequired, Result: clipText(q, MaxTaskResult/7, "the remote task "+clipText(t.ID, 200, ""))}, true
	case a2a.StateCompleted, a2a.StateFailed, a2a.StateCanceled, a2a.StateRejected:
	default:
		return remoteOutcome{}, false
	}
	status := map[a2a.TaskState]string{a2a.StateCompleted: completed, a2a.StateFailed: failed,
		a2a.StateCanceled: canceled, a2a.StateRejected: failed}[t.Status.State]
	var texts []string
	if t.Status.State != a2a.StateCompleted && said != "" {
		texts = append(texts, said) // why it failed, was canceled or rejected
	}
	handoff := ""
	for _, art := range t.Artifacts {
		text := partsText(art.Parts)
		if strings.EqualFold(art.ArtifactID, "handoff") || strings.EqualFold(art.Name, "handoff") {
			handoff = text
			continue
		}
		texts = append(texts, text)
	}
	text := strings.TrimSpace(strings.Join(texts, "\n\n"))
	if text == "" {
		text = orSay(said, "The remote agent "+agent+" ended the task "+strings.ToLower(strings.TrimPrefix(string(t.Status.State), "TASK_STATE_"))+".")
	}
	remoteID := clipText(t.ID, 200, "")
	if handoff == "" {
		handoff = "- Done: " + firstLine(text) + "\n- Remote task: " + remoteID + " at " + agent + "\n- Left / next: see the result"
	}
	text, handoff = fitResult(text, handoff, remoteID)
	return remoteOutcome{Status: status, Result: map[string]any{"text": text, "handoff": handoff, "remote_task_id": remoteID}}, true
}

// statusMark names the status of t, so that the board knows a question it
// handed to people when the remote shows it again: the status message's
// id, else the status's time, else a digest of what it says.
func statusMark(t *a2a.Task) string {
	switch m := t.Status.Message; {
	case m != nil && m.MessageID != "":
		return "message:" + clipText(m.MessageID, 200, "")
	case t.Status.Timestamp != "":
		return "at:" + clipText(t.Status.Timestamp, 100, "")
	}
	return "said:" + shortHash(string(t.Status.State)+"\n"+partsText(statusParts(t)))
}

// fitResult cuts text and handoff until the result they make fits a
// task's result: remote artifacts may be megabytes.
func fitResult(text, handoff, remoteID string) (string, string) {
	where := "the remote task " + remoteID
	for n := MaxTaskResult; ; n /= 2 {
		t, h := clipText(text, n*3/5, where), clipText(handoff, n/5, where)
		raw, err := json.Marshal(map[string]any{"text": t, "handoff": h, "remote_task_id": remoteID})
		if err == nil && utf8.RuneCount(raw) <= MaxTaskResult || n < 100 {
			return t, h
		}
	}
}

// clipText is s cut to at most n characters, saying where the rest is.
func clipText(s string, n int, where string) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if where == "" {
		return string(r[:n])
	}
	return string(r[:n]) + "\n\n(cut here: the rest is in " + where + ")"
}

// statusParts are the parts of a task's status message.
func statusParts(t *a2a.Task) []a2a.Part {
	if t.Status.Message == nil {
		return nil
	}
	return t.Status.Message.Parts
}

// partsText is parts as text: text parts, data parts as JSON, links.
func partsText(parts []a2a.Part) string {
	var out []string
	for _, p := range parts {
		switch {
		case p.Text != nil:
			out = append(out, *p.Text)
		case p.Data != nil:
			out = append(out, string(p.Data))
		case p.URL != nil:
			out = append(out, strings.TrimSpace(p.Filename+" "+*p.URL))
		case p.Raw != nil:
			out = append(out, "(a file of "+p.MediaType+", not kept)")
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n\n"))
}

func orSay(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len([]rune(line)) > 200 {
		line = string([]rune(line)[:199]) + "…"
	}
	return line
}

// remoteMessage is the message that sends a task to its remote agent: its
// title and body; or, when answer is set, the answer a person (or the
// task's poster) gave in message answerID of the board's.
func remoteMessage(t *Task, remoteTaskID, remoteContextID string, answer *string, answerID int64) a2a.Message {
	text, id := t.Title, t.ID+"/sent"
	if t.Body != "" {
		text += "\n\n" + t.Body
	}
	if answer != nil {
		text, id = *answer, t.ID+"/answer/"+strconv.FormatInt(answerID, 10)
	}
	return a2a.Message{MessageID: id, TaskID: remoteTaskID, ContextID: remoteContextID, Role: a2a.RoleUser,
		Parts: []a2a.Part{a2a.TextPart(text)}, Metadata: map[string]any{"pactTaskId": t.ID, "pactProject": t.ProjectID}}
}

// shortHash is a short digest of s.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}
