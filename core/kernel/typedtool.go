package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/sdk/errs"
)

// ToolSpec names and describes a typed tool (AddTool). Its input and output
// schemas are derived from Go types, so the schema agents read and the
// struct the body decodes cannot drift apart.
type ToolSpec struct {
	// Name, Title, Description, Effect and Idempotent are as in Tool.
	Name, Title, Description string
	Effect                   Effect
	Idempotent               bool
	// Types gives the schema of the named types jsonschema.For cannot
	// describe on its own, such as a string enum; a field of such a type
	// still takes its description from its jsonschema tag.
	Types map[reflect.Type]*jsonschema.Schema
	// RoundTrips is the tool's round-trip budget (Tool.RoundTrips).
	RoundTrips int
	// MandateArg names the argument carrying the caller's mandate
	// (Tool.MandateArg).
	MandateArg string
	// ReadAhead is the tool's reads for the first round trip
	// (Tool.ReadAhead).
	ReadAhead func(args map[string]any) []db.Step
	// Wait, when set, is the tool's Wait phase (Tool.Wait); WaitFor adapts
	// a typed one.
	Wait func(ctx context.Context, agent string, args json.RawMessage) (*events.Wait, error)
}

// Amounts is an object of numbers, e.g. {"runs": 1}, or null. Its values
// are left to mandate.CheckAmounts so that a refusal names the key at fault.
type Amounts map[string]any

// AddTool registers a typed MCP tool with h. In and Out are structs: their
// exported fields, by json name, are the properties of the input and output
// schemas (jsonschema.For: a field without omitempty or omitzero is
// required, a pointer or slice also accepts null, unknown properties are
// refused); a field's jsonschema tag is its description. The pipeline
// validates the arguments against the input schema as for every tool
// (Tools.Call), then run receives them decoded into In; its Out is the
// call's result, which the MCP transport answers as structured content.
func AddTool[In, Out any](h *Host, spec ToolSpec, run func(ctx context.Context, c *Call, in In) (Out, error)) error {
	t, err := TypedTool(spec, run)
	if err != nil {
		return err
	}
	return h.Tool(t)
}

// TypedTool builds the Tool AddTool registers, for a registry used without
// a Host (Tools.Add).
func TypedTool[In, Out any](spec ToolSpec, run func(ctx context.Context, c *Call, in In) (Out, error)) (Tool, error) {
	in, err := objectSchema[In](spec, "input")
	if err != nil {
		return Tool{}, err
	}
	out, err := objectSchema[Out](spec, "output")
	if err != nil {
		return Tool{}, err
	}
	return Tool{Name: spec.Name, Title: spec.Title, Description: spec.Description, Effect: spec.Effect, Idempotent: spec.Idempotent,
		Input: in, Output: out, Wait: spec.Wait,
		RoundTrips: spec.RoundTrips, MandateArg: spec.MandateArg, ReadAhead: spec.ReadAhead,
		Run: func(ctx context.Context, c *Call) (any, error) {
			a, err := decodeArgs[In](spec.Name, c.Args)
			if err != nil {
				return nil, err
			}
			return run(ctx, c, a)
		}}, nil
}

// WaitFor adapts a typed Wait phase of tool name to ToolSpec.Wait.
func WaitFor[In any](name string, wait func(ctx context.Context, agent string, in In) (*events.Wait, error)) func(context.Context, string, json.RawMessage) (*events.Wait, error) {
	return func(ctx context.Context, agent string, args json.RawMessage) (*events.Wait, error) {
		a, err := decodeArgs[In](name, args)
		if err != nil {
			return nil, err
		}
		return wait(ctx, agent, a)
	}
}

// decodeArgs decodes arguments the pipeline has already checked against
// the input schema, so an error here is rare (a number too large for its
// field); it is the caller's mistake all the same.
func decodeArgs[In any](name string, args json.RawMessage) (In, error) {
	var a In
	if err := json.Unmarshal(args, &a); err != nil {
		return a, errs.E(errs.InvalidRequest, "%s: %v", name, err)
	}
	return a, nil
}

// objectSchema derives T's schema; T must be a struct, whose schema is an
// object.
func objectSchema[T any](spec ToolSpec, what string) (*jsonschema.Schema, error) {
	if k := reflect.TypeFor[T]().Kind(); k != reflect.Struct {
		return nil, fmt.Errorf("tool %s: its %s type must be a struct, not %s", spec.Name, what, k)
	}
	types := map[reflect.Type]*jsonschema.Schema{
		// Any JSON value, kept as sent (a report's result, preferences).
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[Amounts]():         {Types: []string{"object", "null"}},
	}
	maps.Copy(types, spec.Types)
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		return nil, fmt.Errorf("tool %s: %s schema: %w", spec.Name, what, err)
	}
	return s, nil
}
