package pacts

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Change is one row of "What the agents changed this week": the log
// entry, who said yes to it, and what Undo does or why there is none
// (docs/pacts.md, "Undo").
type Change struct {
	Entry   ledger.Record `json:"entry"`
	SaidYes string        `json:"said_yes" doc:"The person whose approval let it happen (human:<id>), where the log records one; empty when nobody needed to"`
	Undo    string        `json:"undo,omitempty" doc:"What Undo does; absent when the change cannot be undone here"`
	NoUndo  string        `json:"no_undo,omitempty" doc:"Why there is no Undo, and where to act instead"`
}

// The reasons there is no Undo, by what the change was (docs/pacts.md,
// "Undo"). Tools of other modules are undone, if at all, where they live.
const (
	noUndoTask   = "no Undo here: do it on the task's page"
	noUndoNote   = "no Undo here: do it on the project's notes page"
	noUndoCopy   = "no Undo: this write kept no copy of what it replaced"
	noUndoErased = "no Undo: the change's record was erased"
)

// undoOf says what Undo does to the change r records, or why it has none.
// r is an agent's logged write (toolWrites).
func undoOf(r ledger.Record) (does, why string) {
	var p undoPayload
	if r.PayloadErased || json.Unmarshal(r.Payload, &p) != nil {
		return "", noUndoErased
	}
	switch r.Action {
	case ToolUpdateSection:
		if p.Previous == nil || p.Version == 0 {
			return "", noUndoCopy
		}
		return fmt.Sprintf("puts back the text zone %s had before this write", p.Seat), ""
	case ToolHandshake:
		if p.Previous == nil {
			return "", noUndoCopy
		}
		return fmt.Sprintf("puts back the handshake note %s had before this write", p.Seat), ""
	case ToolSetPaused:
		if p.Paused == nil || !*p.Paused {
			return "", "no Undo: pausing a job again is a person's call; use Pause on the pact's page"
		}
		return fmt.Sprintf("wakes %s's job, if this agent's pause still holds it", p.Key), ""
	case ToolPost:
		return "", "no Undo: the thread is append-only; reply to the message, or its author marks it superseded"
	case ToolRaise:
		return "", "no Undo: a decision stays asked; answer it Not needed"
	case ToolCreate:
		return "", "no Undo: close the pact on its page"
	case ToolInvite, ToolJoin:
		return "", "no Undo: remove the seat on the pact's page"
	case ToolSetDelivery:
		return "", "no Undo: how an agent hears of changes is its own setting"
	case "pact_note":
		return "", noUndoNote
	case "pact_message", "pact_claim", "pact_defer", "pact_post", "pact_report", "pact_revoke":
		return "", noUndoTask
	}
	return "", "no Undo: the board does not know what this call changed"
}

// undoPayload is what Undo reads from a change's log entry: the tool's
// arguments and, for a zone or handshake write, what keepForUndo added.
type undoPayload struct {
	PactID    string  `json:"pact_id"`
	Key       string  `json:"key"`
	Paused    *bool   `json:"paused"`
	Body      *string `json:"body"`
	Handshake *string `json:"handshake"`
	Seat      string  `json:"seat"`
	Previous  *string `json:"previous"`
	Version   int     `json:"version"`
}

// Changes reads "What the agents changed this week": the organization's
// entries of the last seven days by agents that changed something, newest
// first, limit entries before entry id before (0: the newest), each with
// who said yes and its Undo.
func (s *Service) Changes(ctx context.Context, tx bun.IDB, a Actor, before int64, limit int) ([]Change, int64, error) {
	recs, next, err := s.changes(ctx, tx, a, before, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Change, 0, len(recs))
	for _, r := range recs {
		c := Change{Entry: r}
		c.Undo, c.NoUndo = undoOf(r)
		if c.SaidYes, err = s.saidYes(ctx, tx, a.Org, r); err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, next, nil
}

// saidYes names the person whose approval let change r happen: for a
// change on a task, the latest approval of that task logged before it.
// The pacts' own writes need nobody's yes: "" then.
func (s *Service) saidYes(ctx context.Context, tx bun.IDB, org string, r ledger.Record) (string, error) {
	if r.TaskID == nil {
		return "", nil
	}
	yes, _ := json.Marshal(map[string]bool{"approve": true})
	recs, err := s.log.Entries(ctx, tx, ledger.Filter{OrgID: org, TaskID: *r.TaskID, Action: "admin.task.approve",
		Outcome: ledger.OK, PayloadContains: yes, Before: r.ID, Limit: 1})
	if err != nil {
		return "", fmt.Errorf("pacts: read the approval of task %s: %w", *r.TaskID, err)
	}
	if len(recs) == 0 {
		return "", nil
	}
	return recs[0].Actor, nil
}

// Undone is what an Undo did.
type Undone struct {
	PactID string `json:"pact_id"`
	Did    string `json:"did" doc:"What Undo did, in a sentence"`
	Cursor int64  `json:"cursor" doc:"The pact's feed after the Undo"`
}

// Undo undoes the agent's change logged as entry id, as person a: what it
// does for each kind of change, and which kinds have none, is undoOf's
// (docs/pacts.md, "Undo"). It refuses with not_found for an entry that is
// not the organization's, invalid_request for a change that cannot be
// undone, forbidden for a closed pact, and changed_since when what it would
// restore changed again after the change.
func (s *Service) Undo(ctx context.Context, tx bun.IDB, a Actor, acc Access, id int64) (Undone, error) {
	recs, err := s.log.Entries(ctx, tx, ledger.Filter{OrgID: a.Org, Before: id + 1, Limit: 1})
	if err != nil {
		return Undone{}, fmt.Errorf("pacts: read entry %d: %w", id, err)
	}
	if len(recs) == 0 || recs[0].ID != id {
		return Undone{}, errs.E(errs.NotFound, "no change %d in your organization's log", id)
	}
	r := recs[0]
	if w, _ := toolWrites(r.Action, r.Payload); !w || !strings.HasPrefix(r.Actor, "agent:") || r.Outcome != ledger.OK {
		return Undone{}, errs.E(errs.InvalidRequest, "this change cannot be undone: entry %d is not a change an agent made", id)
	}
	does, why := undoOf(r)
	if does == "" {
		return Undone{}, errs.E(errs.InvalidRequest, "this change cannot be undone: %s", strings.TrimPrefix(why, "no Undo: "))
	}
	var p undoPayload
	_ = json.Unmarshal(r.Payload, &p) // undoOf read it
	pact, err := s.reach(ctx, tx, a, acc, p.PactID, true)
	if err != nil {
		return Undone{}, err
	}
	// From here on a refusal names the pact, so it lands on its record.
	out := Undone{PactID: pact.ID}
	if !slices.Contains(acc.Write, pact.ProjectID) {
		return out, errs.E(errs.ScopeExceeded, "undoing a change in pact %s needs pact.write@project:%s", pact.ID, pact.ProjectID)
	}
	if pact.ClosedAt != nil {
		return out, errs.E(errs.Forbidden, "pact %s is closed: nothing in it changes, an Undo neither", pact.ID)
	}
	switch r.Action {
	case ToolUpdateSection:
		_, version, found, err := sectionNow(ctx, tx, pact.ID, p.Seat)
		if err != nil {
			return out, err
		}
		if !found || version != p.Version {
			return out, errs.E(errs.ChangedSince, "zone %s of pact %s was written again after this change (version %d now, %d "+
				"after it): undo the newer change first, or write the zone yourself", p.Seat, pact.ID, version, p.Version)
		}
		pos, err := appendFeed(ctx, tx, feedItem{PactID: pact.ID, Kind: "section", Ref: p.Seat, Actor: a.String(), Excerpt: *p.Previous})
		if err != nil {
			return out, err
		}
		if _, _, err := writeSection(ctx, tx, pact.ID, p.Seat, *p.Previous, a.String(), pos.ID); err != nil {
			return out, err
		}
		out.Did, out.Cursor = fmt.Sprintf("Put back zone %s as it was before %s wrote it.", p.Seat, r.Actor), pos.Seq
	case ToolHandshake:
		seat, err := seatNow(ctx, tx, pact.ID, p.Seat)
		if err != nil {
			return out, err
		}
		if seat == nil || p.Handshake == nil || seat.Handshake != *p.Handshake {
			return out, errs.E(errs.ChangedSince, "the handshake note of %s in pact %s changed after this change: "+
				"undo the newer change first", p.Seat, pact.ID)
		}
		pos, err := appendFeed(ctx, tx, feedItem{PactID: pact.ID, Kind: "handshake", Ref: p.Seat, Actor: a.String(), Excerpt: *p.Previous})
		if err != nil {
			return out, err
		}
		if _, err := writeHandshake(ctx, tx, pact.ID, p.Seat, *p.Previous); err != nil {
			return out, err
		}
		out.Did, out.Cursor = fmt.Sprintf("Put back the handshake note of %s as it was before this change.", p.Seat), pos.Seq
	case ToolSetPaused:
		seat, err := seatNow(ctx, tx, pact.ID, p.Key)
		if err != nil {
			return out, err
		}
		if seat == nil || seat.PausedAt == nil || seat.PausedBy == nil || *seat.PausedBy != r.Actor {
			return out, errs.E(errs.ChangedSince, "seat %s of pact %s is no longer held paused by %s: it was woken, "+
				"or paused again by someone else, after this change", p.Key, pact.ID, r.Actor)
		}
		if out.Cursor, err = s.SetPaused(ctx, tx, a, acc, pact.ID, p.Key, false); err != nil {
			return out, err
		}
		out.Did = fmt.Sprintf("Woke %s's job, which %s had paused.", p.Key, r.Actor)
	}
	return out, nil
}
