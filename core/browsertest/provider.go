package browsertest

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/core/logtest"
)

// User is one person the provider's sign-in form accepts. Email is also
// the account's subject (sub). AMR is the access token's amr: the board
// requires "mfa" in it (PACT_ADMIN_REQUIRE_MFA), so a user with
// []string{"pwd"} is one it refuses.
type User struct {
	Email    string   `json:"email"`
	Password string   `json:"password"`
	AMR      []string `json:"amr"`
}

// ProviderConfig configures StartProvider: one client and its users, and
// what an MCP client's sign-in needs besides.
type ProviderConfig struct {
	// ClientID and RedirectURIs make the one static client; with
	// Registration on they may be left empty, for a provider whose clients
	// all register themselves.
	ClientID string
	// ClientSecret makes a confidential client (client_secret_basic); empty
	// makes a public one (a browser app authenticating with PKCE alone).
	ClientSecret string
	RedirectURIs []string
	// Audience is the aud of every access token: the board's
	// PACT_ADMIN_AUDIENCE (<PACT_PUBLIC_URL>/admin by default).
	Audience string
	Users    []User
	// Registration turns on dynamic client registration (RFC 7591) at the
	// discovery document's registration_endpoint, open to any client (no
	// initial access token), as an MCP client registers itself.
	Registration bool
	// ResourceScope, when set, makes every resource indicator (RFC 8707)
	// other than Audience a resource server offering this one scope (pact
	// for the board's MCP URLs), which clients may also register with: a
	// token asked for such a resource is an RS256 JWT whose aud is the
	// resource and whose scope is what was granted of this one.
	ResourceScope string
}

// Provider is oidc-provider (npm) on a loopback port, stopped when the test
// ends. Its issuer is plain http: the auth-oidc plugin accepts http on a
// loopback host (plugins/auth-oidc/main.go).
type Provider struct {
	Issuer                string
	AuthorizationEndpoint string
	TokenEndpoint         string
	RegistrationEndpoint  string // empty without Registration
	cfg                   ProviderConfig
}

// StartProvider starts an OpenID provider for cfg and returns it once its
// discovery document answers.
func StartProvider(t testing.TB, cfg ProviderConfig) *Provider {
	t.Helper()
	dir, script := install(t, "oidc", "pact-browsertest-oidc", "oidc-provider/package.json", "provider")
	if cfg.Audience == "" || len(cfg.Users) == 0 || (cfg.ClientID == "") != (len(cfg.RedirectURIs) == 0) ||
		(cfg.ClientID == "" && !cfg.Registration) {
		t.Fatalf("browsertest: StartProvider needs an audience, users, and a client id with its redirect URIs " +
			"(which only Registration makes optional)")
	}
	conf := map[string]any{"audience": cfg.Audience, "users": cfg.Users,
		"registration": cfg.Registration, "resourceScope": cfg.ResourceScope}
	if cfg.ClientID != "" {
		conf["client"] = map[string]any{"id": cfg.ClientID, "secret": cfg.ClientSecret, "redirectUris": cfg.RedirectURIs}
	}
	raw, err := json.Marshal(conf)
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	file := filepath.Join(t.TempDir(), "provider.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	cmd := exec.Command("node", script, file)
	cmd.Dir = dir
	stderr := &logtest.Buffer{}
	cmd.Stderr = stderr
	// The provider runs until its stdin closes: when this process ends,
	// however it ends, the provider does too.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("browsertest: start node provider.mjs: %v", err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var line string
	select {
	case line = <-ready:
	case <-time.After(time.Minute):
		t.Fatalf("browsertest: oidc-provider did not start within a minute\n%s", stderr)
	}
	var hello struct{ Issuer string }
	if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.Issuer == "" {
		t.Fatalf("browsertest: oidc-provider did not start: %q\n%s", line, stderr)
	}
	p := &Provider{Issuer: hello.Issuer, cfg: cfg}
	var meta struct {
		Authorization string `json:"authorization_endpoint"`
		Token         string `json:"token_endpoint"`
		Registration  string `json:"registration_endpoint"`
	}
	getJSON(t, p.Issuer+"/.well-known/openid-configuration", &meta)
	p.AuthorizationEndpoint, p.TokenEndpoint = meta.Authorization, meta.Token
	p.RegistrationEndpoint = meta.Registration
	return p
}

// Tokens is a token endpoint's answer.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Scope        string `json:"scope"`
}

// PKCE returns a fresh code verifier and its S256 challenge (RFC 7636).
func PKCE() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// AuthorizeURL is the authorization request for the configured client:
// code flow, S256 PKCE, scopes openid email offline_access.
func (p *Provider) AuthorizeURL(redirectURI, state, challenge string) string {
	q := url.Values{
		"client_id": {p.cfg.ClientID}, "response_type": {"code"}, "redirect_uri": {redirectURI},
		"scope": {"openid email offline_access"}, "state": {state}, "prompt": {"consent"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"},
	}
	return p.AuthorizationEndpoint + "?" + q.Encode()
}

// SignIn signs user in on page the way a person does: it opens the
// authorization request, fills the provider's form, waits for the redirect
// to redirectURI (which the test serves) and exchanges the code for tokens.
func (p *Provider) SignIn(t testing.TB, page *Page, user User, redirectURI string) Tokens {
	t.Helper()
	verifier, challenge := PKCE()
	code := p.signIn(t, page, user, redirectURI, p.AuthorizeURL(redirectURI, "st8", challenge))
	return p.Exchange(t, code, verifier, redirectURI)
}

// SignInFor is SignIn asking, for the configured client, for an access
// token for resource (RFC 8707) with scope ResourceScope: what an MCP
// client asks for an MCP server's URL, minted here for whichever resource
// the test names.
func (p *Provider) SignInFor(t testing.TB, page *Page, user User, redirectURI, resource string) Tokens {
	t.Helper()
	if p.cfg.ResourceScope == "" || p.cfg.ClientID == "" {
		t.Fatalf("browsertest: SignInFor needs a provider started with a ResourceScope and a client")
	}
	verifier, challenge := PKCE()
	q := url.Values{
		"client_id": {p.cfg.ClientID}, "response_type": {"code"}, "redirect_uri": {redirectURI},
		"scope": {p.cfg.ResourceScope}, "state": {"st8"}, "resource": {resource},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"},
	}
	code := p.signIn(t, page, user, redirectURI, p.AuthorizationEndpoint+"?"+q.Encode())
	return p.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {redirectURI}, "resource": {resource}})
}

// signIn opens authorize (state st8) on page, fills the provider's form
// and returns the code the redirect to redirectURI carries.
func (p *Provider) signIn(t testing.TB, page *Page, user User, redirectURI, authorize string) string {
	t.Helper()
	page.Goto(authorize)
	page.Fill("Email", user.Email)
	page.Fill("Password", user.Password)
	page.Click("button", "Sign in")
	back, err := url.Parse(page.WaitURL(redirectURI))
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	q := back.Query()
	if q.Get("state") != "st8" || q.Get("code") == "" {
		t.Fatalf("browsertest: sign-in came back without a code: %s", back)
	}
	return q.Get("code")
}

// Exchange trades an authorization code for tokens at the token endpoint.
func (p *Provider) Exchange(t testing.TB, code, verifier, redirectURI string) Tokens {
	t.Helper()
	return p.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {redirectURI}})
}

// Refresh trades a refresh token for fresh tokens.
func (p *Provider) Refresh(t testing.TB, refreshToken string) Tokens {
	t.Helper()
	return p.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}})
}

func (p *Provider) token(t testing.TB, form url.Values) Tokens {
	t.Helper()
	if p.cfg.ClientSecret == "" {
		form.Set("client_id", p.cfg.ClientID)
	}
	req, err := http.NewRequest(http.MethodPost, p.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if p.cfg.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(p.cfg.ClientID), url.QueryEscape(p.cfg.ClientSecret))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("browsertest: token endpoint: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("browsertest: token endpoint answered %s: %s", resp.Status, body)
	}
	var tok Tokens
	if err := json.Unmarshal(body, &tok); err != nil {
		t.Fatalf("browsertest: token endpoint: %v: %s", err, body)
	}
	return tok
}

func getJSON(t testing.TB, u string, out any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("browsertest: GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("browsertest: GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("browsertest: GET %s: %v", u, err)
	}
}
