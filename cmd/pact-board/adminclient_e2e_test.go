package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/adminclient"
)

// oidcIssuer is a minimal OpenID provider on loopback: discovery, a JWKS,
// and ES256 access tokens. The board verifies them through the real
// auth-oidc plugin binary, exactly as it would a production issuer's.
type oidcIssuer struct {
	*httptest.Server
	key *ecdsa.PrivateKey
}

func newOIDCIssuer(t *testing.T) *oidcIssuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	o := &oidcIssuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": o.URL, "jwks_uri": o.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	o.Server = httptest.NewServer(mux)
	t.Cleanup(o.Close)
	return o
}

func (o *oidcIssuer) token(t *testing.T, sub, email, audience string) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: o.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	require.NoError(t, err)
	now := time.Now()
	tok, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: o.URL, Subject: sub, Audience: jwt.Audience{audience},
		Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}).
		Claims(map[string]any{"email": email, "email_verified": true, "amr": []string{"pwd", "mfa"}}).Serialize()
	require.NoError(t, err)
	return tok
}

// The Admin API's generated Go client drives the board end to end: a person
// signed in through a real OIDC plugin hires an agent, the agent redeems its
// setup code and posts a task needing approval over MCP, the person approves
// it and gives a mandate through the client, and the agent claims it.
func TestGeneratedClientHiresApprovesAndTheAgentClaims(t *testing.T) {
	ctx := context.Background()
	iss := newOIDCIssuer(t)
	base, dsn := startBoardWithOIDC(t, iss.URL, nil)
	d, err := db.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)

	token := iss.token(t, "oidc-sub-ana", "ana@example.com", "http://127.0.0.1:8787/admin")
	client, err := adminclient.NewClientWithResponses(base, adminclient.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	require.NoError(t, err)

	// ana's account is no person until it accepts her invitation.
	me, err := client.PeopleGetMeWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, me.StatusCode(), string(me.Body))
	invited, err := client.PeopleListInvitationsWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, invited.StatusCode(), string(invited.Body))
	require.Len(t, invited.JSON200.Invitations, 1)
	require.Equal(t, "ana", invited.JSON200.Invitations[0].HumanId)
	accepted, err := client.PeopleAcceptInvitationWithResponse(ctx, "ana")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, accepted.StatusCode(), string(accepted.Body))
	me, err = client.PeopleGetMeWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, me.StatusCode(), string(me.Body))

	hired, err := client.PeopleHireAgentWithResponse(ctx, adminclient.HireInBody{Role: "code", Project: "web"})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hired.StatusCode(), string(hired.Body))
	require.Equal(t, "code-web", hired.JSON201.AgentId)
	code := *hired.JSON201.Connect.Code

	resp, err := http.Post(base+"/connect", "application/json", strings.NewReader(`{"code": "`+code+`"}`))
	require.NoError(t, err)
	var connected struct {
		Token  string `json:"token"`
		MCPURL string `json:"mcp_url"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&connected))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	agent := connect(t, base, "code-web", connected.Token)
	root := hired.JSON201.RootMandateId
	task := agent.ok("pact_post", map[string]any{"project_id": "web", "title": "Ship the release", "mandate_id": root,
		"action": "deploy.web"})
	require.Equal(t, "auth_required", task["status"])
	taskID := task["task_id"].(string)
	refusal, refused := agent.call("pact_claim", map[string]any{"task_id": taskID, "mandate_id": root})
	require.True(t, refused)
	require.Equal(t, "approval_pending", refusal["error"])

	approved, err := client.BoardApproveTaskWithResponse(ctx, uuid.MustParse(taskID))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, approved.StatusCode(), string(approved.Body))
	scope := []string{"deploy.web@project:web", "task.read@project:web"}
	issued, err := client.BoardIssueMandateWithResponse(ctx, adminclient.IssueMandateInBody{Holder: "code-web", Scope: &scope})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, issued.StatusCode(), string(issued.Body))

	claim := agent.ok("pact_claim", map[string]any{"task_id": taskID, "mandate_id": issued.JSON201.MandateId})
	require.Equal(t, "working", claim["status"])

	other := iss.token(t, "oidc-sub-ana", "ana@example.com", "http://127.0.0.1:8787/mcp/a/code-web")
	refused2, err := adminclient.NewClientWithResponses(base, adminclient.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+other)
			return nil
		}))
	require.NoError(t, err)
	denied, err := refused2.PeopleGetMeWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, denied.StatusCode(), "a token minted for an agent URL is refused by the Admin API")
}
