package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// A call's metric label is ok, the refusal's code, or error.
func TestOutcomeLabels(t *testing.T) {
	require.Equal(t, "ok", Outcome(nil))
	require.Equal(t, "forbidden", Outcome(errs.E(errs.Forbidden, "no")))
	require.Equal(t, "error", Outcome(fmt.Errorf("disk on fire")))
}

// SignedIn refuses a request without a person as unauthorized, and returns
// the person of one with.
func TestSignedInRefusesARequestWithoutAPerson(t *testing.T) {
	_, err := SignedIn(context.Background())
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
	ana := &identity.Person{ID: "ana"}
	p, err := SignedIn(context.WithValue(context.Background(), personKey{}, ana))
	require.NoError(t, err)
	require.Same(t, ana, p)
}

// WaitFor decodes the arguments for the wait it adapts, and refuses
// undecodable ones as invalid_request without calling it.
func TestWaitForDecodesItsArguments(t *testing.T) {
	var got []int
	w := WaitFor("pact_x", func(ctx context.Context, agent string, in struct{ N int }) (*events.Wait, error) {
		got = append(got, in.N)
		return nil, nil
	})
	_, err := w(context.Background(), "a1", json.RawMessage(`{"N":7}`))
	require.NoError(t, err)
	_, err = w(context.Background(), "a1", json.RawMessage(`{"N":"seven"}`))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Equal(t, []int{7}, got)
}
