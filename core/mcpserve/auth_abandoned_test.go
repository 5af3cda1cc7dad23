package mcpserve_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/stretchr/testify/require"
)

// checkUntilGone is an Authenticator that holds every check until the
// request's context ends, as a database query does when its client hangs
// up mid-check, and answers that context's error wrapped.
type checkUntilGone struct{ started chan struct{} }

func (c checkUntilGone) Authenticate(ctx context.Context, _, _ string) error {
	c.started <- struct{}{}
	<-ctx.Done()
	return fmt.Errorf("check agent token: %w", ctx.Err())
}

// A client that hangs up while its token is being checked is no failure of
// the board's: a debug line, never an error line. (Seen in CI: a cancelled
// call's stream went away mid-check and logged "cannot authenticate".)
func TestARequestAbandonedDuringAuthenticationIsNoFailure(t *testing.T) {
	logs := &logtest.Buffer{}
	auth := checkUntilGone{started: make(chan struct{}, 1)}
	s := mcpserve.New(mcpserve.Options{Auth: auth, PublicURL: publicURL,
		Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug}),
		Tools:  kernel.NewTools(nil, nil, nil), Resources: &kernel.Resources{}})
	mux := http.NewServeMux()
	for pattern, h := range s.Routes() {
		mux.Handle(pattern, h)
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp/a/code-web", strings.NewReader(initBody("2025-06-18")))
	req.Header.Set("Authorization", "Bearer pact_x")
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-auth.started
	cancel()
	require.Error(t, <-done)
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "request abandoned by its client") },
		10*time.Second, 10*time.Millisecond, logs.String())
	require.Contains(t, logs.String(), "[DEBUG] request abandoned by its client")
	require.NotContains(t, logs.String(), "[ERROR]")
}
