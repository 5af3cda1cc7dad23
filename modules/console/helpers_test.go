package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/modules/console"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// probe is a module with one safe and one unsafe Admin API operation,
// answering the caller's id.
type probe struct{}

func (probe) Name() string { return "probe" }

type probeOut struct {
	Body struct {
		ID string `json:"id"`
	}
}

func (probe) Register(h *kernel.Host) error {
	answer := func(ctx context.Context, _ *struct{}) (*probeOut, error) {
		p, err := kernel.SignedIn(ctx)
		if err != nil {
			return nil, err
		}
		out := &probeOut{}
		out.Body.ID = p.ID
		return out, nil
	}
	huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "probe-get", Method: http.MethodGet, Path: "/probe"}, identity.Viewer), answer)
	huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "probe-post", Method: http.MethodPost, Path: "/probe"}, identity.Viewer), answer)
	return nil
}

// board is a World with the console, its clock shiftable by skew.
type board struct {
	*kerneltest.World
	skew *atomic.Int64
	// base is the clock skew shifts: time.Now, or a fixed instant for a
	// board whose clock stands still (boardOptions.still).
	base func() time.Time
}

// now is the board's time: the console's, and the issuer's once later
// (or a still board) has set it.
func (b *board) now() time.Time { return b.base().Add(time.Duration(b.skew.Load())) }

func (b *board) later(d time.Duration) {
	b.skew.Add(int64(d))
	b.Issuer.Now = b.now
}

// boardOptions shape a board beyond its environment.
type boardOptions struct {
	env map[string]string
	// noHub leaves the events hub out: a board whose stops reach no
	// channel, as if every notification of them were lost.
	noHub bool
	// still stops the board's clock at a whole second, the console's and
	// the issuer's: only later moves it, so a test can stand at an exact
	// instant.
	still bool
	// logger receives the kernel's and the console's logs (nil: none).
	logger hclog.Logger
}

func newBoard(t *testing.T, env map[string]string) *board {
	return newBoardWith(t, boardOptions{env: env})
}

func newBoardWith(t *testing.T, o boardOptions) *board {
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	b := &board{skew: &atomic.Int64{}, base: time.Now}
	if o.still {
		start := time.Now().Truncate(time.Second)
		b.base = func() time.Time { return start }
	}
	b.World = kerneltest.New(t, kerneltest.Options{Env: o.env, Events: !o.noHub, Logger: o.logger,
		Modules: func(*kerneltest.World) []kernel.Module {
			return []kernel.Module{probe{}, console.New(console.Options{Keys: keys, Now: b.now})}
		}})
	if o.still {
		b.Issuer.Now = b.now
	}
	return b
}

// reply is one answer the browser got.
type reply struct {
	Status int
	Header http.Header
	Body   string
}

// browser keeps cookies, never follows redirects, and records every answer.
type browser struct {
	t       *testing.T
	client  *http.Client
	replies []reply
}

func newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *browser) do(method, url string, header map[string]string) reply {
	b.t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(b.t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	r := reply{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
	b.replies = append(b.replies, r)
	return r
}

func (b *browser) get(url string) reply { return b.do(http.MethodGet, url, nil) }

// cookie is the browser's session cookie for base, or "".
func (b *browser) cookie(base string) string {
	req, _ := http.NewRequest(http.MethodGet, base+"/console/", nil)
	for _, c := range b.client.Jar.Cookies(req.URL) {
		if c.Name == console.CookieName {
			return c.Value
		}
	}
	return ""
}

// noTokens fails if any answer the browser got carries one of tokens.
func (b *browser) noTokens(tokens []string) {
	b.t.Helper()
	require.NotEmpty(b.t, tokens)
	for _, r := range b.replies {
		for _, tok := range tokens {
			require.NotContains(b.t, r.Body, tok)
			for k, vs := range r.Header {
				for _, v := range vs {
					require.NotContains(b.t, v, tok, "header %s", k)
				}
			}
		}
	}
}

// issuerServer is the OAuth endpoints of the World's issuer, signing in
// person id.
func issuerServer(t *testing.T) (*authtest.Server, map[string]string) {
	srv := authtest.NewServer(t, nil)
	return srv, map[string]string{"PACT_AUTH_ISSUER": srv.URL, "PACT_CONSOLE_CLIENT_ID": "console"}
}
