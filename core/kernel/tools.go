package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/sdk/errs"
)

// Tool is an MCP tool a module registers. Its body runs inside the
// tool-call pipeline (Tools.Call), never on its own, so no tool can skip the
// gate, the log entry or the refusal rule.
type Tool struct {
	// Name is what agents call, e.g. pact_post.
	Name string
	// Title and Description are shown to agents; the description says what
	// the tool does and when to use it.
	Title, Description string
	// Effect is what a call does to the board (effect.go), and Idempotent
	// says that calling it again with the same arguments changes nothing
	// more: together, the tool's MCP annotations (Tool.Hints).
	Effect     Effect
	Idempotent bool
	// Input is the JSON schema of the arguments; every property has a
	// description an agent can act on.
	Input *jsonschema.Schema
	// Output, when set, is the JSON schema of the tool's results, served as
	// its outputSchema; AddTool derives it from the result's Go type.
	Output *jsonschema.Schema
	// Run is the tool body. It runs in the call's transaction and fills in
	// the call's entry (project, task, mandate chain) as it learns them.
	Run func(ctx context.Context, c *Call) (any, error)
	// RoundTrips is the most exchanges with PostgreSQL one call of the tool
	// makes, from the bearer-token check to COMMIT (a batch is one; a
	// connection's one-time prepare of a statement is not counted). The
	// board's test of every tool holds each tool to it exactly
	// (docs/invariants.md PERF-001), so a change that adds a round trip
	// says so here.
	RoundTrips int
	// MandateArg, when set, names the argument that carries the mandate the
	// call acts under: the pipeline reads that mandate's chain in the round
	// trip that opens the call's transaction (mandate.Service.ReadAhead), so
	// the body's Verify costs no round trip of its own.
	MandateArg string
	// ReadAhead, when set, returns statements to run in the round trip
	// that opens the call's transaction, after the gate, from the call's
	// arguments (decoded, not yet checked against the schema): reads the
	// body will want first, kept in the transaction (db.Tx.Keep) for it to
	// take. They run before the gate's verdict is known and must not write.
	ReadAhead func(args map[string]any) []db.Step
	// Wait, when set, runs before the call's transaction: it checks that
	// the agent may wait and returns what to wait for, which the pipeline
	// runs (up to 50 s) until there is something for Run to return, or
	// hands to the transport (WithHolder). No transaction is held while it
	// waits, so a thousand waiting agents hold no connections. A nil wait
	// goes straight to Run. A refusal from Wait is logged like one from Run.
	Wait func(ctx context.Context, agent string, args json.RawMessage) (*events.Wait, error)
}

// Call is one tool call in the pipeline.
type Call struct {
	// AgentID is the caller, taken from the URL and its credential, never
	// from the arguments.
	AgentID string
	// OrgID is the caller's organization.
	OrgID string
	// Caller is the agent as the gate read it, in the call's transaction:
	// its organization, client and projects.
	Caller *identity.Caller
	// Args are the call's arguments, as sent.
	Args json.RawMessage
	// Tx is the call's transaction: the body's writes and the entry commit
	// together. It is pipelined (db.Tx): its BEGIN travels with the gate's
	// statement and its COMMIT with the entry's append.
	Tx *db.Tx
	// Entry is what the log will record. Its payload defaults to Args.
	Entry *ledger.Entry
	// Draining: the board is shutting down (Kernel.Drain). A tool with a
	// Wait phase then answers with its reconnect flag set, so the client
	// calls again, and another board answers.
	Draining bool
}

// Tools is the registry of MCP tools and the one path every call takes.
type Tools struct {
	db       *db.DB
	log      *ledger.Log
	mandates *mandate.Service // reads chains ahead (Tool.MandateArg); nil: never

	waits waitSlots          // the waits each agent holds (MaxWaitsPerAgent)
	hub   *events.Hub        // wakes held waits on stops; nil: never
	drain *drain             // the kernel's; nil (never drains) for a bare registry
	seen  func(agent string) // stamps last_seen after a call commits; nil: never
	// identity checks the agent tokens calls carry unchecked
	// (WithAgentToken); nil refuses every such call.
	identity *identity.Service
	// metrics counts and times the calls of registered tools; nil records
	// nothing.
	metrics *metrics.Metrics

	mu       sync.Mutex
	tools    map[string]*Tool
	resolved map[string]*jsonschema.Resolved
	order    []string
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// NewTools returns an empty registry over d and log; mandates, when not
// nil, reads the chains of tools with a MandateArg ahead.
func NewTools(d *db.DB, log *ledger.Log, mandates *mandate.Service) *Tools {
	return &Tools{db: d, log: log, mandates: mandates, tools: map[string]*Tool{},
		resolved: map[string]*jsonschema.Resolved{}}
}

// Add registers t. It refuses a malformed or duplicate name, a tool without
// a description, an input schema or a body.
func (r *Tools) Add(t Tool) error {
	switch {
	case !toolName.MatchString(t.Name):
		return fmt.Errorf("tool name %q must match %s", t.Name, toolName)
	case t.Description == "" || t.Title == "":
		return fmt.Errorf("tool %s needs a title and a description", t.Name)
	case t.Effect < Reads || t.Effect > Updates:
		return fmt.Errorf("tool %s must declare its effect (kernel.Reads, Adds or Updates), not %s", t.Name, t.Effect)
	case t.Effect == Reads && t.Idempotent:
		return fmt.Errorf("tool %s only reads, which is idempotent already: Idempotent is for a tool that changes something", t.Name)
	case t.Input == nil:
		return fmt.Errorf("tool %s needs an input schema", t.Name)
	case t.Run == nil:
		return fmt.Errorf("tool %s has no body", t.Name)
	}
	if t.Input.Type != "object" {
		return fmt.Errorf("tool %s: its input schema must be of type object", t.Name)
	}
	if !closed(t.Input) {
		return fmt.Errorf("tool %s: its input schema must refuse unknown arguments (additionalProperties: false)", t.Name)
	}
	if !strings.HasSuffix(t.Description, UnknownArgumentsRule) {
		t.Description += " " + UnknownArgumentsRule
	}
	resolved, err := t.Input.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	if t.Output != nil {
		if t.Output.Type != "object" {
			return fmt.Errorf("tool %s: its output schema must be of type object", t.Name)
		}
		if _, err := t.Output.Resolve(nil); err != nil {
			return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tool %s is registered twice", t.Name)
	}
	r.tools[t.Name] = &t
	r.resolved[t.Name] = resolved
	r.order = append(r.order, t.Name)
	return nil
}

// List returns the registered tools in registration order: the population
// tool-wide tests iterate over.
func (r *Tools) List() []*Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}

// Waiting is how many calls with a Wait phase are held now, by every
// agent: the held-waits gauge (docs/operations.md, "What to monitor").
func (r *Tools) Waiting() int { return r.waits.count() }

// Names returns the registered tool names, sorted.
func (r *Tools) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.order))
}

// Call runs tool name for agent with args through the pipeline:
//
//  0. arguments holding a number canonical JSON cannot carry faithfully
//     (checkArgNumbers) are refused as invalid_request before anything
//     else, and logged by digest;
//  1. gate, in the call's transaction: agent_unknown when the agent does
//     not exist; system_halted when the platform's or its organization's
//     kill switch is on; agent_paused when it is paused, banned or replaced;
//  2. the arguments are checked against the tool's input schema
//     (invalid_request naming what is wrong), and for a NUL character in
//     any string (withoutNUL); a refusal rolls the stamp back with
//     everything else;
//  3. the tool body runs;
//  4. on success the entry (actor agent:<id>, action = the tool's name,
//     outcome ok) is appended in the same transaction, which then commits,
//     and the agent's last_seen is stamped apart (identity.Service.Seen);
//  5. on a refusal everything rolls back and the entry is appended with the
//     refusal's code in a transaction of its own (ledger.Record); arguments
//     longer than maxLoggedRefusedArgs, or not JSON, are logged by digest
//     (argsDigest).
//
// Errors other than refusals are returned unlogged; callers translate them.
// A call of a registered tool is counted and timed by outcome (metrics);
// an unknown name, which the agent chooses, never becomes a label.
func (r *Tools) Call(ctx context.Context, agent, name string, args json.RawMessage) (_ any, err error) {
	r.mu.Lock()
	t, ok := r.tools[name]
	schema := r.resolved[name]
	r.mu.Unlock()
	if len(args) == 0 || string(args) == "null" { // no arguments at all
		args = json.RawMessage(`{}`)
	}
	valid := json.Valid(args)
	var numbersErr error
	if valid {
		numbersErr = checkArgNumbers(args)
	}
	if token, unchecked := agentTokenFrom(ctx); unchecked &&
		(!ok || GrantFrom(ctx) != nil || numbersErr != nil) {
		// These answer or log before the gate, so the token cannot wait for
		// the gate's statement. (A waiting tool checks it in the statement
		// that admits the agent before the wait: wait.)
		if err := r.authenticatedApart(ctx, agent, token); err != nil {
			return nil, err
		}
		ctx = context.WithValue(ctx, agentTokenKey{}, nil)
	}
	if !ok {
		return nil, errs.E(errs.InvalidRequest, "there is no tool %s", name)
	}
	start := time.Now()
	defer func() {
		// A wait handed to the transport (ErrHeld) is counted once, by the
		// call that ends it after the wait (Waited); a refused token was
		// never a call.
		if !errors.Is(err, ErrHeld) && !errors.Is(err, identity.ErrTokenRefused) {
			r.metrics.ToolCall(name, Outcome(err), time.Since(start))
		}
	}()
	var result any
	e := ledger.Entry{Actor: "agent:" + agent, AgentID: agent, Action: name, Payload: args}
	if !valid {
		e.Payload = argsDigest(args) // still logged, by digest and first bytes
	} else if err := numbersErr; err != nil {
		// Before the gate and any transaction of the call: the check needs
		// no database, and a number nobody can read alike (or cheaply) gets
		// no pool connection of its own. Whatever the agent's status, the
		// refusal is invalid_request; it is logged in the agent's
		// organization by digest, never the number (SEC-001).
		e.Payload = argsDigest(args)
		return nil, r.log.RecordRefusal(context.WithoutCancel(ctx), r.db, e, err)
	}
	if g := GrantFrom(ctx); g != nil && valid {
		// A per-run credential (grants.go): its tools only, under its
		// mandate only, refused and logged before the gate like any
		// refusal; the entry records the mandate the call acts under.
		if args, err = underGrant(g, t, args); err != nil {
			boundRefused(&e, err)
			return nil, r.log.RecordRefusal(context.WithoutCancel(ctx), r.db, e, err)
		}
		e.Payload = args
	}
	if t.Wait != nil {
		if err := r.wait(ctx, t, schema, agent, args); err != nil {
			if errs.IsRefusal(err) {
				boundRefused(&e, err)
				return nil, r.log.RecordRefusal(context.WithoutCancel(ctx), r.db, e, err)
			}
			return nil, err
		}
	}
	// The arguments are decoded once, here: for the chain to read ahead,
	// then for the schema check, which refuses only after the gate.
	var decoded any
	decodeErr := json.Unmarshal(args, &decoded)
	admitStep, admitted := r.admitStep(ctx, agent)
	first := []db.Step{admitStep}
	if ahead, ok := r.readAhead(t, agent, decoded); ok {
		first = append(first, ahead)
	}
	if named, ok := decoded.(map[string]any); ok && t.ReadAhead != nil {
		first = append(first, t.ReadAhead(named)...)
	}
	err = r.log.RecordPipelined(ctx, r.db, e, first, func(ctx context.Context, tx *db.Tx, e *ledger.Entry) (err error) {
		defer func() { boundRefused(e, err) }()
		who, err := admitted()
		if who != nil {
			e.OrgID = who.OrgID
		}
		if err != nil {
			return err
		}
		if err := validDecoded(schema, decoded, decodeErr); err != nil {
			return err
		}
		result, err = t.Run(ctx, &Call{AgentID: agent, OrgID: who.OrgID, Caller: who, Args: args, Tx: tx, Entry: e,
			Draining: r.drain.draining()})
		return err
	})
	if err == nil && r.seen != nil {
		r.seen(agent)
	}
	return result, err
}

// Outcome is how a call ended, as a metric's label: ok, the refusal's
// error code (a documented, bounded set: docs/errors.md), or error.
func Outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errs.IsRefusal(err):
		return string(errs.CodeOf(err))
	}
	return "error"
}

// guard ends a held wait as soon as a stop changes its agent's standing
// (docs/security.md, "A stop reaches every channel"): the agent is no
// longer admitted (banned, paused, replaced, a kill switch), the mandate
// the call names no longer verifies, or the agent left a project it was
// in when the wait began. The call then runs its logged part at once,
// which refuses, or answers from what the agent may reach now.
func (r *Tools) guard(w *events.Wait, stops *events.Subscription, t *Tool, caller *identity.Caller, args json.RawMessage) {
	var named map[string]any
	_ = json.Unmarshal(args, &named) // checked by validArgs already
	id, _ := named[t.MandateArg].(string)
	agent, projects := caller.ID, caller.Projects
	w.Guard(stops, func(ctx context.Context) (changed bool, err error) {
		err = r.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			now, err := identity.Admit(ctx, r.db, tx, agent)
			if _, refused := errs.As(err); refused {
				changed = true
				return nil
			} else if err != nil {
				return err
			}
			for _, p := range projects {
				if !slices.Contains(now.Projects, p) {
					changed = true
					return nil
				}
			}
			if t.MandateArg == "" || r.mandates == nil || id == "" {
				return nil
			}
			_, err = r.mandates.Verify(ctx, tx, id, agent)
			if _, refused := errs.As(err); refused {
				changed = true
				return nil
			}
			return err
		})
		return changed, err
	})
}

// waiting lists the tools with a Wait phase, in registration order.
func (r *Tools) waiting() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, name := range r.order {
		if r.tools[name].Wait != nil {
			out = append(out, name)
		}
	}
	return out
}

// readAhead is the step that reads the chain of the mandate t's MandateArg
// names in args, if it names one.
func (r *Tools) readAhead(t *Tool, agent string, args any) (db.Step, bool) {
	named, _ := args.(map[string]any)
	id, _ := named[t.MandateArg].(string)
	if t.MandateArg == "" || r.mandates == nil || id == "" {
		return db.Step{}, false
	}
	return r.mandates.ReadAhead(id, agent)
}

// UnknownArgumentsRule ends every tool's description: the board refuses
// an argument a tool does not take rather than ignore it, because a
// mistyped name (delegate for delegate_to) would otherwise change what
// the call does without a word (docs/specs/divergences.md, audit item 5).
const UnknownArgumentsRule = "Arguments this tool does not list are refused (invalid_request), so a mistyped name never passes silently."

// closed reports whether an object schema refuses properties it does not
// list.
func closed(s *jsonschema.Schema) bool {
	a := s.AdditionalProperties
	return a != nil && a.Not != nil && reflect.ValueOf(*a.Not).IsZero()
}

// unknownArgs refuses the names in args that schema does not list, naming
// them and what the tool takes.
func unknownArgs(schema *jsonschema.Resolved, args map[string]any) error {
	s := schema.Schema()
	var unknown []string
	for name := range args {
		if _, ok := s.Properties[name]; !ok {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	takes := slices.Sorted(maps.Keys(s.Properties))
	return errs.E(errs.InvalidRequest, "unknown argument %s; this tool takes %s", strings.Join(unknown, ", "), strings.Join(takes, ", "))
}

// validArgs checks args against the tool's input schema.
func validArgs(schema *jsonschema.Resolved, args json.RawMessage) error {
	var v any
	err := json.Unmarshal(args, &v)
	return validDecoded(schema, v, err)
}

// validDecoded checks arguments decoded into v (decodeErr: how decoding
// them failed) against the tool's input schema.
func validDecoded(schema *jsonschema.Resolved, v any, decodeErr error) error {
	if decodeErr != nil {
		return errs.E(errs.InvalidRequest, "the arguments are not valid JSON: %v", decodeErr)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return errs.E(errs.InvalidRequest, "the arguments must be a JSON object")
	}
	if err := unknownArgs(schema, obj); err != nil {
		return err
	}
	if err := schema.Validate(v); err != nil {
		return errs.E(errs.InvalidRequest, "invalid arguments: %v", err)
	}
	return withoutNUL(obj)
}

// wait runs a tool's Wait phase after the gate and the argument check that
// the pipeline will repeat in its transaction; a refused agent never waits.
// A call whose wait has already run (Waited) takes that wait's outcome.
// An agent already holding MaxWaitsPerAgent waits is refused rate_limited
// before its wait is prepared.
func (r *Tools) wait(ctx context.Context, t *Tool, schema *jsonschema.Resolved, agent string, args json.RawMessage) error {
	if w, ok := waitedFor(ctx, t.Name); ok {
		return w.err
	}
	// Subscribed before the agent is first admitted: a stop committed from
	// here on reaches the wait's guard. Until the agent's organization is
	// known every organization's kill switch matches; then only its own.
	var org atomic.Pointer[string]
	stops := r.hub.Subscribe(func(ev events.Event) bool {
		if o := org.Load(); o != nil {
			return ev.StopsAgent(*o, agent)
		}
		return ev.Kind == events.KindStop && (ev.AgentID == agent || ev.AgentID == "" && ev.HumanID == "")
	})
	guarded := false
	defer func() {
		if !guarded {
			stops.Close()
		}
	}()
	// One round trip admits the agent and checks the call's token, if it
	// carries one unchecked: a refused token (identity.ErrTokenRefused) is
	// not a refusal, so it ends the call unlogged, as in the gate.
	step, admitted := r.admitStep(ctx, agent)
	if err := r.db.Once(ctx, step); err != nil {
		return err
	}
	caller, err := admitted()
	if err != nil {
		return err
	}
	org.Store(&caller.OrgID)
	if err := validArgs(schema, args); err != nil {
		return err
	}
	release, err := r.waits.take(agent, t.Name)
	if err != nil {
		return err
	}
	handed := false
	defer func() {
		if !handed { // no wait was made (a refusal, nothing to wait for, a panic)
			release()
		}
	}()
	w, err := t.Wait(ctx, agent, args)
	if err != nil || w == nil {
		return err
	}
	r.guard(w, stops, t, caller, args)
	guarded = true
	// The slot is the wait's until the wait ends, wherever it runs: here,
	// or in the transport that holds it.
	w.OnEnd(release)
	handed = true
	return hold(ctx, t.Name, w, r.drain)
}
