package pacts

import "time"

// streamEvent is one pact_feed row as an agent's stream and webhook carry
// it. Its ID is the row's number in the organization's feed (seq,
// migration 029), never the board-wide id.
type streamEvent struct {
	ID       int64     `bun:"id" json:"id"`
	PactID   string    `bun:"pact_id" json:"pact_id"`
	PactName string    `bun:"pact_name" json:"pact"`
	Kind     string    `bun:"kind" json:"kind"`
	Ref      string    `bun:"ref" json:"ref,omitempty"`
	Seat     *string   `bun:"seat_key" json:"seat,omitempty"`
	Actor    string    `bun:"actor" json:"actor"`
	At       time.Time `bun:"at" json:"at"`
	Excerpt  string    `bun:"excerpt" json:"excerpt,omitempty"`
	ReadRest readRest  `bun:"-" json:"read_rest"`
}

// readRest is the exact call that reads the rest; the agent adds its
// mandate_id.
type readRest struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

func (e *streamEvent) fill() {
	e.ReadRest = readRest{Tool: ToolGet, Arguments: map[string]any{"pact_id": e.PactID, "since": e.ID - 1}}
}

// streamWindow is how far back Last-Event-ID replays.
const streamWindow = 7 * 24 * time.Hour
