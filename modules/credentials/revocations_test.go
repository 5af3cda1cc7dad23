package credentials_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/sdk/credential"
)

// listSigner is a credential plugin that signs a revocation list as the
// text "revoked: <ids>" and records what it was asked, or fails with err.
type listSigner struct {
	keyRecorder
	err error

	mu  sync.Mutex
	got []credential.RevocationRequest
}

func (s *listSigner) Credential(string) (credential.Credential, error) { return s, nil }
func (s *listSigner) RevocationList(_ context.Context, r credential.RevocationRequest) (*credential.RevocationList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, r)
	if s.err != nil {
		return nil, s.err
	}
	return &credential.RevocationList{ContentType: "text/plain", Body: []byte("revoked: " + strings.Join(r.Revoked, ","))}, nil
}

func (s *listSigner) last() credential.RevocationRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[len(s.got)-1]
}

// fetchList GETs format's revocation list from f's public route.
func fetchList(t *testing.T, f *kerneltest.World, format string) (status int, version, body string) {
	t.Helper()
	resp, err := http.Get(f.URL + "/.well-known/pact-revocations/" + format)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("X-Pact-Revocations-Version"), string(raw)
}

// revokeWithChild issues code-web a child of its root, records the outside
// id w-child as minted for it (as an export does), revokes the child, and
// returns the root and the child.
func revokeWithChild(t *testing.T, f *board) (root, child *mandate.Mandate) {
	t.Helper()
	ctx := context.Background()
	root, err := f.Mandates.Get(ctx, f.DB, f.Root("code-web"))
	require.NoError(t, err)
	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		child, err = f.Mandates.IssueChild(ctx, tx, mandate.Chain{root}, mandate.ChildInput{Holder: "code-web", Scope: []string{"task.read@project:web"}})
		return err
	}))
	f.Exec(`INSERT INTO credential_links (format, external_id, mandate_id) VALUES ('tenuo', 'w-child', ?)`, child.ID)
	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := f.Mandates.RevokeSubtree(ctx, tx, child.ID)
		return err
	}))
	return root, child
}

// The public list is the plugin's signing of the format's revoked ids, with
// the list's version: an empty list (never a null one) before anything is
// revoked, the revoked id after.
func TestTheRevocationListIsSignedOverTheRevokedIDs(t *testing.T) {
	signer := &listSigner{}
	f := setup(t, nil, signer)

	status, version, body := fetchList(t, f.World, "tenuo")
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "0", version)
	require.Equal(t, "revoked: ", body)
	require.NotNil(t, signer.last().Revoked, "an empty list, not a missing one")
	require.Empty(t, signer.last().Revoked)

	revokeWithChild(t, f)
	status, version, body = fetchList(t, f.World, "tenuo")
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "1", version)
	require.Equal(t, "revoked: w-child", body)
	require.Equal(t, []string{"w-child"}, signer.last().Revoked)
	require.EqualValues(t, 1, signer.last().Version)
}

// A revocation list that cannot be served because a plugin or the database
// is unavailable answers 503 and stays out of the error log (verifiers
// refetch often, and an unconfigured plugin is no fault); any other failure
// answers 500 and is logged, since nothing else says what went wrong.
func TestOnlyAnUnexpectedRevocationListFailureIsLogged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plugins credentials.Plugins
		status  int
		logged  bool
	}{
		{"NoPlugin", noPlugins{}, http.StatusServiceUnavailable, false},
		{"PluginFails", &listSigner{err: fmt.Errorf("the signer crashed")}, http.StatusInternalServerError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logtest.Buffer{}
			w := kerneltest.New(t, kerneltest.Options{NoMCP: true,
				Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info}),
				Modules: func(w *kerneltest.World) []kernel.Module {
					return []kernel.Module{credentials.New(credentials.Options{Plugins: tc.plugins, Keys: w.Mandates.Keys()})}
				}})
			status, _, body := fetchList(t, w, "tenuo")
			require.Equal(t, tc.status, status, body)
			if tc.logged {
				require.Contains(t, logs.String(), "revocation list: format=tenuo")
				require.Contains(t, logs.String(), "the signer crashed")
			} else {
				require.NotContains(t, logs.String(), "revocation list")
			}
		})
	}
}

// RevocationsPublished (seams.MandateCredentials) names, among the mandates
// asked about, those an outside id minted for is on a published list, and
// only those.
func TestRevocationsPublishedNamesTheMandatesWithARevokedID(t *testing.T) {
	ctx := context.Background()
	f := setup(t, nil, noPlugins{})
	root, child := revokeWithChild(t, f)

	got, err := f.mod.RevocationsPublished(ctx, f.DB, []string{root.ID.String(), child.ID.String()})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{child.ID.String(): true}, got)
	got, err = f.mod.RevocationsPublished(ctx, f.DB, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}
