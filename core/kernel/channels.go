package kernel

import (
	"fmt"
	"slices"
	"sync"
)

// A channel is a way the board pushes or hands content to an agent or a
// person: a held MCP call, a stream, a webhook, a hook's answer, a
// notification. Every stop of its audience must reach it (docs/security.md,
// "A stop reaches every channel"): nothing new reaches the channel after
// the stop, and an open connection ends or is refused within 2 seconds.
// The cross-channel test (cmd/pact-board/stops_test.go) takes its channels
// from this registry, its stops from Stops, and fails on a channel it has
// no driver for; the tools with a Wait phase are channels by
// construction (Kernel.Channels), and every plain route must be a
// channel's or say why it is none.

// Audience is whom a channel serves.
type Audience string

// The audiences.
const (
	AgentAudience  Audience = "agent"
	PersonAudience Audience = "person"
)

// Stop is what ends a principal's standing.
type Stop string

// The stops of an agent, and of a person.
const (
	StopBan            Stop = "ban"
	StopPause          Stop = "pause"
	StopRevokeRoot     Stop = "revoke-root"
	StopRevokeLink     Stop = "revoke-link"
	StopLeaveProject   Stop = "leave-project"
	StopOrgHalt        Stop = "org-kill-switch"
	StopPlatformHalt   Stop = "platform-kill-switch"
	StopPersonDisabled Stop = "person-disabled"
	StopSignOut        Stop = "sign-out"
)

// Stops lists the stops that concern an audience: an agent's reach a
// channel that serves agents, a person's one that serves people.
func Stops(a Audience) []Stop {
	switch a {
	case AgentAudience:
		return []Stop{StopBan, StopPause, StopRevokeRoot, StopRevokeLink, StopLeaveProject, StopOrgHalt, StopPlatformHalt}
	case PersonAudience:
		return []Stop{StopPersonDisabled, StopSignOut}
	}
	return nil
}

// Channel describes one channel.
type Channel struct {
	// Name is unique, such as "pact-stream".
	Name     string
	Audience Audience
	// Routes are the plain routes (Host.Handle patterns) that serve it,
	// and Operations the Admin API operations (their ids), if any.
	Routes, Operations []string
	// Exempt lists the stops of its audience that do not apply to it,
	// each with the reason, as "<stop>: <why>".
	Exempt map[Stop]string
	// Summary says what it carries, in a sentence.
	Summary string
}

// Applies reports whether stop s must reach c.
func (c Channel) Applies(s Stop) bool {
	_, exempt := c.Exempt[s]
	return slices.Contains(Stops(c.Audience), s) && !exempt
}

// channels is the kernel's registry of channels.
type channels struct {
	mu   sync.Mutex
	list []Channel
}

func (r *channels) add(c Channel) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Name == "" || len(Stops(c.Audience)) == 0 || c.Summary == "" {
		return fmt.Errorf("kernel: channel %q needs a name, an audience and a summary", c.Name)
	}
	if slices.ContainsFunc(r.list, func(o Channel) bool { return o.Name == c.Name }) {
		return fmt.Errorf("kernel: channel %q is registered twice", c.Name)
	}
	for s, why := range c.Exempt {
		if !slices.Contains(Stops(c.Audience), s) || why == "" {
			return fmt.Errorf("kernel: channel %q exempts %q, which is no stop of its audience or has no reason", c.Name, s)
		}
	}
	r.list = append(r.list, c)
	return nil
}

// Channel registers a channel the module serves.
func (h *Host) Channel(c Channel) error { return h.k.channels.add(c) }

// Channels lists the registered channels, then one for each tool with a
// Wait phase ("mcp:<tool>"): a held call hands the agent what it waited
// for.
func (k *Kernel) Channels() []Channel {
	k.channels.mu.Lock()
	out := slices.Clone(k.channels.list)
	k.channels.mu.Unlock()
	for _, t := range k.tools.waiting() {
		out = append(out, Channel{Name: "mcp:" + t, Audience: AgentAudience,
			Summary: "the held MCP call " + t + " answers with what it waited for"})
	}
	return out
}
