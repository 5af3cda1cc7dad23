package kernel_test

import (
	"context"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
)

// TestAToolMustDeclareItsEffect: the registry refuses a tool that does not
// say what its calls do, or that says it only reads and also claims to be
// idempotent (a read is already); a declared tool's hints follow its
// effect. TOOL-004.
func TestAToolMustDeclareItsEffect(t *testing.T) {
	tool := func(e kernel.Effect, idempotent bool) kernel.Tool {
		return kernel.Tool{Name: "demo_effect", Title: "Effect", Description: "Does nothing.", Effect: e, Idempotent: idempotent,
			Input: &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
			Run:   func(context.Context, *kernel.Call) (any, error) { return nil, nil }}
	}
	for _, bad := range []kernel.Tool{tool(0, false), tool(kernel.Updates+1, false), tool(kernel.Reads, true)} {
		err := kernel.NewTools(nil, nil, nil).Add(bad)
		require.ErrorContains(t, err, "demo_effect", "effect %s, idempotent %v", bad.Effect, bad.Idempotent)
	}
	cases := []struct {
		effect     kernel.Effect
		idempotent bool
		want       kernel.Hints
	}{
		{kernel.Reads, false, kernel.Hints{ReadOnly: true, Idempotent: true}},
		{kernel.Adds, false, kernel.Hints{}},
		{kernel.Adds, true, kernel.Hints{Idempotent: true}},
		{kernel.Updates, false, kernel.Hints{Destructive: true}},
		{kernel.Updates, true, kernel.Hints{Destructive: true, Idempotent: true}},
	}
	for _, c := range cases {
		tl := tool(c.effect, c.idempotent)
		require.NoError(t, kernel.NewTools(nil, nil, nil).Add(tl))
		require.Equal(t, c.want, tl.Hints(), "%s, idempotent %v", c.effect, c.idempotent)
	}
}
