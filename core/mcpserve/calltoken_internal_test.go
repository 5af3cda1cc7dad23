package mcpserve

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// countingAuth answers every check with err, counting them.
type countingAuth struct {
	err   error
	calls *int
}

func (a countingAuth) Authenticate(context.Context, string, string) error {
	*a.calls++
	return a.err
}

// TestAnUncheckedTokenServesOnlyTheCallPeekRead: whatever the SDK makes of
// a request whose token was left for the call to check, only a tools/call
// of the tool peek read goes on unchecked; any other method, or another
// tool, has the token checked first, and a refused one runs nothing.
func TestAnUncheckedTokenServesOnlyTheCallPeekRead(t *testing.T) {
	cases := []struct {
		name      string
		method    string
		params    mcp.Params
		unchecked bool // goes on without a check apart
	}{
		{"the call peek read", "tools/call", &mcp.CallToolParamsRaw{Name: "test_echo"}, true},
		{"a call of another tool", "tools/call", &mcp.CallToolParamsRaw{Name: "test_greet"}, false},
		{"another method", "tools/list", &mcp.ListToolsParams{}, false},
		{"a resource read", "resources/read", &mcp.ReadResourceParams{URI: "pact://x"}, false},
	}
	for _, c := range cases {
		for _, refuse := range []bool{true, false} {
			checks, ran := 0, false
			auth := countingAuth{calls: &checks}
			if refuse {
				auth.err = errs.E(errs.Unauthorized, "invalid or expired agent token")
			}
			s := &Server{opts: Options{Auth: auth}}
			who := &caller{agent: "code-web", unchecked: "pact_x", tool: "test_echo"}
			ctx := context.WithValue(context.Background(), callerKey{}, who)
			next := func(context.Context, string, mcp.Request) (mcp.Result, error) { ran = true; return nil, nil }
			_, err := s.checkUnchecked(next)(ctx, c.method, &mcp.ServerRequest[mcp.Params]{Params: c.params})
			if c.unchecked {
				require.NoError(t, err, c.name)
				require.True(t, ran, c.name)
				require.Zero(t, checks, "%s: left to the call's gate", c.name)
				continue
			}
			require.Equal(t, 1, checks, "%s: checked apart", c.name)
			require.Equal(t, !refuse, ran, "%s, refused %v", c.name, refuse)
			require.Equal(t, refuse, who.tokenRefused.Load(), c.name)
			require.Equal(t, !refuse, who.tokenChecked.Load(), c.name)
		}
	}
}
