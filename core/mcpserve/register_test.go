package mcpserve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mcpserve"
)

type anyToken struct{}

func (anyToken) Authenticate(context.Context, string, string) error { return nil }

// Register takes what the options leave out from the host: here the
// board's public URL from its configuration, which the challenge of a
// call without a token names. It refuses options it cannot serve with:
// no resources, or agent tokens with nothing to check them against.
func TestRegisterTakesWhatTheHostHasAndRefusesWhatItLacks(t *testing.T) {
	k := kerneltest.Bare(&boot.Config{PublicURL: "https://configured.example"})
	require.NoError(t, k.Register(mcpserve.New(mcpserve.Options{Resources: k.Resources(), Auth: anyToken{}})))
	req := httptest.NewRequest(http.MethodPost, "/mcp/a/code-web", strings.NewReader(rpcBody("tools/list", nil)))
	req.Host = "configured.example" // the host the board answers as (rebinding.go)
	rec := httptest.NewRecorder()
	k.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Header().Get("WWW-Authenticate"),
		`resource_metadata="https://configured.example/.well-known/oauth-protected-resource/mcp/a/code-web"`)

	bare := kerneltest.Bare(nil)
	require.ErrorContains(t, bare.Register(mcpserve.New(mcpserve.Options{Auth: anyToken{}})),
		"mcpserve: Options.Resources is required (pass kernel.Kernel.Resources())")
	bare = kerneltest.Bare(nil)
	require.ErrorContains(t, bare.Register(mcpserve.New(mcpserve.Options{Resources: bare.Resources()})),
		"mcpserve: agent tokens need the identity service and the database")
}
