package pacts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
)

// toolWrites says whether a logged call of the board's tool name with
// payload changed anything, and whether name is known at all. Every tool
// the board serves is named here, and a test holds the list to the tool
// registry (TestEveryToolIsClassifiedAsReadOrWrite), so a new tool cannot
// slip past "What the agents changed this week" unclassified. An unknown
// name counts as a write: better shown than hidden.
func toolWrites(name string, payload json.RawMessage) (writes, known bool) {
	switch name {
	case ToolList, ToolGet, "pact_list", "pact_whoami", "pact_wait", "pact_events":
		return false, true
	case "pact_run_credential":
		// It lets a run act on the board, and changes nothing people
		// would look for: what the run does is logged call by call.
		return false, true
	case "pact_note", "pact_message":
		// Both read without a body and write with one.
		var args struct {
			Body *string `json:"body"`
		}
		_ = json.Unmarshal(payload, &args)
		return args.Body != nil, true
	case ToolCreate, ToolInvite, ToolJoin, ToolPost, ToolUpdateSection, ToolRaise, ToolHandshake, ToolSetPaused,
		ToolSetDelivery, "pact_claim", "pact_defer", "pact_post", "pact_report", "pact_revoke", "pact_cancel", "pact_reply":
		return true, true
	}
	return true, false
}

// KnownTool reports whether toolWrites classifies tool name; for the test
// that holds the classification to the registry.
func KnownTool(name string) bool {
	_, known := toolWrites(name, nil)
	return known
}

// scan pages through the log entries f selects, newest first, keeping
// those keep accepts, until limit are kept; it answers them with the
// cursor (an entry id) of the next page, 0 when there is none.
func (s *Service) scan(ctx context.Context, tx bun.IDB, f ledger.Filter, keep func(ledger.Record) bool, limit int) ([]ledger.Record, int64, error) {
	out := []ledger.Record{}
	f.Limit = 200
	for {
		recs, err := s.log.Entries(ctx, tx, f)
		if err != nil {
			return nil, 0, fmt.Errorf("pacts: read the log: %w", err)
		}
		for i, r := range recs {
			if !keep(r) {
				continue
			}
			out = append(out, r)
			if len(out) == limit {
				if i == len(recs)-1 && len(recs) < f.Limit {
					return out, 0, nil
				}
				return out, r.ID, nil
			}
		}
		if len(recs) < f.Limit {
			return out, 0, nil
		}
		f.Before = recs[len(recs)-1].ID
	}
}

// Record reads pact's record: the log's entries about it (every write and
// every refused one, with who tried it; reads left out), newest first,
// limit entries before entry id before (0: the newest).
func (s *Service) Record(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string, before int64, limit int) ([]ledger.Record, int64, error) {
	p, err := s.reach(ctx, tx, a, acc, pact, false)
	if err != nil {
		return nil, 0, err
	}
	filter, _ := json.Marshal(map[string]string{"pact_id": p.ID})
	return s.scan(ctx, tx, ledger.Filter{OrgID: a.Org, PayloadContains: filter, Before: before}, func(r ledger.Record) bool {
		w, _ := toolWrites(r.Action, r.Payload)
		return w
	}, limit)
}

// changes reads the log entries of "What the agents changed this week":
// the organization's entries of the last seven days by agents that changed
// something, newest first, limit entries before entry id before (0: the
// newest).
func (s *Service) changes(ctx context.Context, tx bun.IDB, a Actor, before int64, limit int) ([]ledger.Record, int64, error) {
	from := s.ident.Now().Add(-7 * 24 * time.Hour)
	return s.scan(ctx, tx, ledger.Filter{OrgID: a.Org, Outcome: ledger.OK, From: &from, Before: before}, func(r ledger.Record) bool {
		if !strings.HasPrefix(r.Actor, "agent:") {
			return false
		}
		w, _ := toolWrites(r.Action, r.Payload)
		return w
	}, limit)
}
