package kernel_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

type color string

type paintIn struct {
	Color  color           `json:"color" jsonschema:"The colour to paint with."`
	Coats  *int            `json:"coats,omitempty" jsonschema:"How many coats; default 1."`
	Note   *string         `json:"note,omitempty" jsonschema:"Anything to remember."`
	Budget kernel.Amounts  `json:"budget,omitempty" jsonschema:"What it may cost."`
	Extra  json.RawMessage `json:"extra,omitempty" jsonschema:"Any JSON value."`
}

type paintOut struct {
	Painted string  `json:"painted" jsonschema:"What was painted."`
	Coats   int     `json:"coats" jsonschema:"How many coats."`
	Note    *string `json:"note,omitempty" jsonschema:"The note, when one was given."`
}

func paintTool(t *testing.T) kernel.Tool {
	t.Helper()
	tool, err := kernel.TypedTool(kernel.ToolSpec{Name: "demo_paint", Effect: kernel.Updates, Title: "Paint", Description: "Paints project web.",
		Types: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[color](): {Type: "string", Enum: []any{"red", "blue"}}}},
		func(_ context.Context, c *kernel.Call, in paintIn) (paintOut, error) {
			if in.Color == "blue" {
				return paintOut{}, errs.E(errs.ScopeExceeded, "no blue")
			}
			out := paintOut{Painted: "web " + string(in.Color), Coats: 1, Note: in.Note}
			if in.Coats != nil {
				out.Coats = *in.Coats
			}
			return out, nil
		})
	require.NoError(t, err)
	return tool
}

func TestTypedToolDerivesItsSchemasFromItsTypes(t *testing.T) {
	tool := paintTool(t)
	in, err := json.Marshal(tool.Input)
	require.NoError(t, err)
	require.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["color"],"properties":{
		"color":{"type":"string","enum":["red","blue"],"description":"The colour to paint with."},
		"coats":{"type":["null","integer"],"description":"How many coats; default 1."},
		"note":{"type":["null","string"],"description":"Anything to remember."},
		"budget":{"type":["object","null"],"description":"What it may cost."},
		"extra":{"description":"Any JSON value."}}}`, string(in))
	out, err := json.Marshal(tool.Output)
	require.NoError(t, err)
	require.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["painted","coats"],"properties":{
		"painted":{"type":"string","description":"What was painted."},
		"coats":{"type":"integer","description":"How many coats."},
		"note":{"type":["null","string"],"description":"The note, when one was given."}}}`, string(out))
}

func TestTypedToolRunsInThePipeline(t *testing.T) {
	d, r := toolFixture(t)
	require.NoError(t, r.Add(paintTool(t)))
	ctx := context.Background()
	out, err := r.Call(ctx, "code-web", "demo_paint", json.RawMessage(`{"color": "red", "coats": 2, "note": null}`))
	require.NoError(t, err)
	require.Equal(t, paintOut{Painted: "web red", Coats: 2}, out)
	_, err = r.Call(ctx, "code-web", "demo_paint", json.RawMessage(`{"color": "blue"}`))
	require.Equal(t, errs.ScopeExceeded, errs.CodeOf(err))
	for _, bad := range []string{`{}`, `{"color": "green"}`, `{"color": "red", "unknown": 1}`, `{"color": "red", "coats": "2"}`,
		`{"color": "red", "budget": 3}`} {
		_, err = r.Call(ctx, "code-web", "demo_paint", json.RawMessage(bad))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), bad)
	}
	require.Equal(t, 7, snapshot(t, d).Entries, "one success, six refusals, all logged")
}

func TestTypedToolNeedsStructs(t *testing.T) {
	spec := kernel.ToolSpec{Name: "demo_bad", Effect: kernel.Reads, Title: "Bad", Description: "Has no object types."}
	_, err := kernel.TypedTool(spec, func(context.Context, *kernel.Call, string) (paintOut, error) { return paintOut{}, nil })
	require.ErrorContains(t, err, "input type must be a struct")
	_, err = kernel.TypedTool(spec, func(context.Context, *kernel.Call, paintIn) ([]int, error) { return nil, nil })
	require.ErrorContains(t, err, "output type must be a struct")
}
