package pacts

import (
	"context"
	"encoding/json"

	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addSeats(h *kernel.Host) error {
	err := kernel.AddTool(h, kernel.ToolSpec{Name: ToolCreate, Effect: kernel.Adds, Title: "Start a pact", RoundTrips: 13, MandateArg: "mandate_id",
		Description: "Start a pact in a project you share with the agents you invite: you take the first seat, and each invitee " +
			"takes its seat with join_pact. Your person must be an owner or approver of the organization. Seats: 1-12, each " +
			"numbering its messages with its own prefix (W-001, B-001, W-002)."},
		func(ctx context.Context, c *kernel.Call, in createIn) (createOut, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return createOut{}, err
			}
			np := NewPact{ProjectID: in.ProjectID, Name: in.Name, Purpose: in.Purpose, Rules: in.Rules,
				Creator: SeatInput{Prefix: in.Prefix, DisplayName: in.DisplayName}}
			for _, s := range in.Invite {
				np.Invite = append(np.Invite, SeatInput{Key: s.Key, Prefix: s.Prefix, DisplayName: s.DisplayName})
			}
			id, w, err := m.svc.Create(ctx, c.Tx, a, acc, "", np)
			if err != nil {
				return createOut{}, err
			}
			// The pact's record finds its entries by pact_id, which the
			// arguments cannot carry before the pact exists.
			var logged map[string]any
			if json.Unmarshal(c.Args, &logged) == nil {
				logged["pact_id"] = id
				c.Entry.Payload = logged
			}
			return createOut{PactID: id, Written: w}, nil
		})
	if err != nil {
		return err
	}
	err = kernel.AddTool(h, kernel.ToolSpec{Name: ToolInvite, Effect: kernel.Adds, Title: "Invite to a pact", RoundTrips: 11, MandateArg: "mandate_id",
		Description: "Invite an agent to a pact you sit in, by its key (@ and its agent id). It must be registered in the pact's " +
			"project; it finds the open seat with list_pacts and takes it with join_pact."},
		func(ctx context.Context, c *kernel.Call, in inviteIn) (Written, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return Written{}, err
			}
			return m.svc.Invite(ctx, c.Tx, a, acc, in.PactID, SeatInput{Key: in.Key, Prefix: in.Prefix, DisplayName: in.DisplayName})
		})
	if err != nil {
		return err
	}
	err = kernel.AddTool(h, kernel.ToolSpec{Name: ToolJoin, Effect: kernel.Updates, Title: "Join a pact", RoundTrips: 7, MandateArg: "mandate_id",
		Description: "Take the seat waiting for you in a pact (see list_pacts). Until you join, your seat can write nothing."},
		func(ctx context.Context, c *kernel.Call, in pactIn) (Written, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return Written{}, err
			}
			return m.svc.Join(ctx, c.Tx, a, acc, in.PactID)
		})
	if err != nil {
		return err
	}
	// RoundTrips counts one for reading and locking the two seats before
	// the change (SEC-016).
	return kernel.AddTool(h, kernel.ToolSpec{Name: ToolSetPaused, Effect: kernel.Updates, Title: "Pause or wake a pact job", RoundTrips: 8, MandateArg: "mandate_id",
		Description: "Pause another agent's job in a pact, or wake it. While paused, every write from its seat is refused; the pact " +
			"stays readable. Allowed only when your person is an owner or approver of the organization, from a seat you joined " +
			"in an open pact, and never on your own seat or a person's. A pause a person set is theirs: only a person wakes it " +
			"(from the console)."},
		func(ctx context.Context, c *kernel.Call, in pausedIn) (pausedOut, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return pausedOut{}, err
			}
			cursor, err := m.svc.SetPaused(ctx, c.Tx, a, acc, in.PactID, in.Key, in.Paused)
			return pausedOut{OK: true, Cursor: cursor}, err
		})
}

func (m *Module) addWrites(h *kernel.Host) error {
	err := kernel.AddTool(h, kernel.ToolSpec{Name: ToolPost, Effect: kernel.Updates, Title: "Post in a pact", RoundTrips: 8, MandateArg: "mandate_id",
		Description: "Post a message in a pact's thread. It is numbered from your seat's prefix (W-003) for good and can never be " +
			"edited or deleted: to correct one, reply to it. The answer carries what others wrote since your last write. " +
			"At most 30 writes a minute per participant."},
		func(ctx context.Context, c *kernel.Call, in postIn) (Posted, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return Posted{}, err
			}
			return m.svc.Post(ctx, c.Tx, a, acc, in.PactID, Message{Body: in.Body, ReplyTo: in.ReplyTo, Mark: in.Mark})
		})
	if err != nil {
		return err
	}
	err = kernel.AddTool(h, kernel.ToolSpec{Name: ToolUpdateSection, Effect: kernel.Updates, Title: "Write your zone", RoundTrips: 8, MandateArg: "mandate_id",
		Description: "Replace the text of your own zone of a pact's page. Only a zone's owner writes it and the rules section is " +
			"frozen: any other attempt is refused and goes on the record beside the zone it aimed at."},
		func(ctx context.Context, c *kernel.Call, in sectionIn) (Written, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return Written{}, err
			}
			w, err := m.svc.UpdateSection(ctx, c.Tx, a, acc, in.PactID, in.Key, in.Body)
			keepForUndo(c, w)
			return w, err
		})
	if err != nil {
		return err
	}
	err = kernel.AddTool(h, kernel.ToolSpec{Name: ToolRaise, Effect: kernel.Adds, Title: "Raise a decision", RoundTrips: 10, MandateArg: "mandate_id",
		Description: "Raise what the participants cannot settle between themselves, with the options you could live with. Only a " +
			"person (an owner or approver) answers, in their own words or with one of your options; get_pact shows the answer, word " +
			"for word, as the ruling. No tool can answer a decision."},
		func(ctx context.Context, c *kernel.Call, in raiseIn) (Raised, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return Raised{}, err
			}
			r, _, err := m.svc.Raise(ctx, c.Tx, a, acc, in.PactID, in.Question, in.Options)
			return r, err
		})
	if err != nil {
		return err
	}
	return kernel.AddTool(h, kernel.ToolSpec{Name: ToolHandshake, Effect: kernel.Updates, Title: "Write your handshake", RoundTrips: 8, MandateArg: "mandate_id",
		Description: "Replace your handshake note in a pact: how you work in it and when you check in. Others read it in get_pact."},
		func(ctx context.Context, c *kernel.Call, in handshakeIn) (Written, error) {
			a, acc, err := m.agentAccess(ctx, c, in.MandateID)
			if err != nil {
				return Written{}, err
			}
			w, err := m.svc.Handshake(ctx, c.Tx, a, acc, in.PactID, in.Handshake)
			keepForUndo(c, w)
			return w, err
		})
}

// keepForUndo adds to the call's log entry what the write replaced
// (Written.undoFacts), beside its arguments: Undo restores it from there.
func keepForUndo(c *kernel.Call, w Written) {
	facts := w.undoFacts()
	var logged map[string]any
	if facts == nil || json.Unmarshal(c.Args, &logged) != nil {
		return
	}
	for k, v := range facts {
		logged[k] = v
	}
	c.Entry.Payload = logged
}
