package kernel_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// sessions is a fake of the console's sessions (modules/console provides
// the real ones, tested there against a real provider): the cookie
// "session=<person>" signs that person in with CSRF token "csrf-<person>";
// "session=broken" fails; any other cookie holds no session. It counts
// the lookups, and refreshes a cookie on each.
type sessions struct{ lookups int }

func (s *sessions) AdminSession(_ context.Context, cookie string, setCookie func(string)) (*kernel.AdminSession, error) {
	s.lookups++
	switch cookie {
	case "session=val":
		setCookie("session=val; refreshed")
		return &kernel.AdminSession{Person: &identity.Person{ID: "val", Role: identity.Approver}, CSRF: "csrf-val"}, nil
	case "session=vic":
		return &kernel.AdminSession{Person: &identity.Person{ID: "vic", Role: identity.Viewer}, CSRF: "csrf-vic"}, nil
	case "session=broken":
		return nil, errs.E(errs.Unauthorized, "the session has ended; sign in again")
	}
	return nil, nil
}

func (s *sessions) AdminAccount(_ context.Context, cookie string, setCookie func(string)) (*kernel.AccountSession, error) {
	s.lookups++
	switch cookie {
	case "session=cy":
		setCookie("session=cy; refreshed")
		return &kernel.AccountSession{Account: &authissuer.Identity{Subject: "cy"}, CSRF: "csrf-cy"}, nil
	case "session=broken":
		return nil, errs.E(errs.Unauthorized, "the session has ended; sign in again")
	}
	return nil, nil
}

// sessionBoard is gated's board with the console's sessions provided, and
// the SessionAccounts and AdminAuthenticator modules are handed.
func sessionBoard(t *testing.T, auth kernel.AdminAuthenticator) (http.Handler, *sessions, kernel.SessionAccounts, kernel.AdminAuthenticator) {
	t.Helper()
	s := &sessions{}
	var accounts kernel.SessionAccounts
	var authenticator kernel.AdminAuthenticator
	k := kernel.New(kernel.Deps{AdminAuth: auth})
	require.NoError(t, k.Register(moduleFunc{"who", func(h *kernel.Host) error {
		h.ProvideAdminSessions(s)
		accounts, authenticator = h.SessionAccounts(), h.AdminAuthenticator()
		who := func(ctx context.Context, _ *struct{}) (*whoOut, error) {
			out := &whoOut{}
			out.Body.ID = kernel.AdminPerson(ctx).ID
			return out, nil
		}
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-view", Method: http.MethodGet, Path: "/view"}, identity.Viewer), who)
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-approve", Method: http.MethodPost, Path: "/approve"}, identity.Approver), who)
		return nil
	}}))
	return k.Handler(), s, accounts, authenticator
}

// headers is a request's headers as the gate reads them.
type headers map[string]string

func (h headers) get(name string) string { return h[name] }

func sessionCall(h http.Handler, method, path string, hdr headers) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// A console session signs a person in to the Admin API as a bearer token
// would (docs/console.md): a safe method needs only the cookie; an unsafe
// one must repeat the session's CSRF token in X-CSRF-Token, or is refused
// 403 saying so; an Authorization header wins over the cookie, which is
// then not read; a request without a cookie reads no session; a session
// that fails refuses the call with its reason; a cookie that holds no
// session falls back to the Authorization header, absent here: 401.
func TestAConsoleSessionSignsInWithItsCSRFToken(t *testing.T) {
	h, s, _, _ := sessionBoard(t, people)
	for _, tc := range []struct {
		name, method, path string
		hdr                headers
		status             int
		body               string
		lookups            int
	}{
		{"view", "GET", "/admin/api/view", headers{"Cookie": "session=vic"}, 200, `{"id":"vic"}`, 1},
		{"unsafe without the token", "POST", "/admin/api/approve", headers{"Cookie": "session=val"}, 403,
			`{"error":"forbidden","message":"a POST with a console session needs the header X-CSRF-Token: the session's CSRF token, from GET /console/session"}`, 1},
		{"unsafe with another session's token", "POST", "/admin/api/approve", headers{"Cookie": "session=val", kernel.CSRFHeader: "csrf-vic"}, 403,
			`{"error":"forbidden","message":"a POST with a console session needs the header X-CSRF-Token: the session's CSRF token, from GET /console/session"}`, 1},
		{"unsafe with its token", "POST", "/admin/api/approve", headers{"Cookie": "session=val", kernel.CSRFHeader: "csrf-val"}, 200, `{"id":"val"}`, 1},
		{"the role still applies", "POST", "/admin/api/approve", headers{"Cookie": "session=vic", kernel.CSRFHeader: "csrf-vic"}, 403,
			`{"error":"forbidden","message":"vic is viewer; this needs approver"}`, 1},
		{"a bearer token wins", "GET", "/admin/api/view", headers{"Cookie": "session=vic", "Authorization": "Bearer val"}, 200, `{"id":"val"}`, 0},
		{"no cookie", "GET", "/admin/api/view", headers{}, 401, `{"error":"unauthorized","message":"bad token"}`, 0},
		{"a session that failed", "GET", "/admin/api/view", headers{"Cookie": "session=broken"}, 401,
			`{"error":"unauthorized","message":"the session has ended; sign in again"}`, 1},
		{"a cookie without a session", "GET", "/admin/api/view", headers{"Cookie": "theme=dark"}, 401, `{"error":"unauthorized","message":"bad token"}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.lookups
			rec := sessionCall(h, tc.method, tc.path, tc.hdr)
			require.Equal(t, tc.status, rec.Code)
			require.JSONEq(t, tc.body, rec.Body.String())
			require.Equal(t, tc.lookups, s.lookups-before, "sessions read")
		})
	}
	rec := sessionCall(h, "GET", "/admin/api/view", headers{"Cookie": "session=val"})
	require.Equal(t, []string{"session=val; refreshed"}, rec.Header().Values("Set-Cookie"), "a refreshed session's cookie is set on the answer")
}

// SessionAccounts reads a console session's account for the operations any
// signed-in account may call, under the same rules as a person's session.
func TestSessionAccountsKeepTheSameRules(t *testing.T) {
	_, s, accounts, _ := sessionBoard(t, people)
	ctx := context.Background()
	var set []string
	setCookie := func(c string) { set = append(set, c) }
	for _, tc := range []struct {
		name, method string
		hdr          headers
		subject      string
		refusal      errs.Code
		lookups      int
	}{
		{"read", "GET", headers{"Cookie": "session=cy"}, "cy", "", 1},
		{"unsafe without the token", "POST", headers{"Cookie": "session=cy"}, "", errs.Forbidden, 1},
		{"unsafe with a wrong token", "POST", headers{"Cookie": "session=cy", kernel.CSRFHeader: "csrf-val"}, "", errs.Forbidden, 1},
		{"unsafe with its token", "POST", headers{"Cookie": "session=cy", kernel.CSRFHeader: "csrf-cy"}, "cy", "", 1},
		{"a bearer token wins", "GET", headers{"Cookie": "session=cy", "Authorization": "Bearer cy"}, "", "", 0},
		{"no cookie", "GET", headers{}, "", "", 0},
		{"a session that failed", "POST", headers{"Cookie": "session=broken"}, "", errs.Unauthorized, 1},
		{"a cookie without a session", "POST", headers{"Cookie": "theme=dark"}, "", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.lookups
			got, err := accounts.Account(ctx, tc.method, tc.hdr.get, setCookie)
			require.Equal(t, tc.lookups, s.lookups-before, "sessions read")
			if tc.refusal != "" {
				require.Equal(t, tc.refusal, errs.CodeOf(err), "%v", err)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			if tc.subject == "" {
				require.Nil(t, got)
				return
			}
			require.Equal(t, tc.subject, got.Subject)
		})
	}
	require.Contains(t, set, "session=cy; refreshed")
}

// Modules are handed the board's authenticator, or, on a board without
// OAuth, one that refuses every token saying so.
func TestModulesAreHandedTheBoardsAuthenticator(t *testing.T) {
	_, _, _, auth := sessionBoard(t, people)
	p, err := auth.Authenticate(context.Background(), "Bearer val")
	require.NoError(t, err)
	require.Equal(t, "val", p.ID)

	_, _, _, none := sessionBoard(t, nil)
	_, err = none.Authenticate(context.Background(), "Bearer val")
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
	require.ErrorContains(t, err, "OAuth is not configured on this board (PACT_AUTH_ISSUER)")
}

// The gate tells operators what they need to know and no more: a failure
// of the board's (5xx) is logged as an error, a token the issuer refused
// for a reason the caller is not told is logged with that reason, and a
// plain refusal is not logged; a recorder that fails to record a refusal
// is logged, and the refusal still answered.
func TestTheGateLogsWhatOperatorsNeed(t *testing.T) {
	var logs bytes.Buffer
	k := kernel.New(kernel.Deps{AdminAuth: people, Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Info})})
	require.NoError(t, k.Register(moduleFunc{"who", func(h *kernel.Host) error {
		who := func(context.Context, *struct{}) (*whoOut, error) { return &whoOut{}, nil }
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-view", Method: http.MethodGet, Path: "/view"}, identity.Viewer), who)
		failing := func(context.Context, *identity.Person, func(string) string, error) error {
			return errs.E(errs.Internal, "the log is down")
		}
		huma.Register(h.Admin(), kernel.RecordRefusals(kernel.AdminOp(huma.Operation{OperationID: "who-approve", Method: http.MethodPost,
			Path: "/approve"}, identity.Approver), failing), who)
		return nil
	}}))
	h := k.Handler()
	took := func() string { s := logs.String(); logs.Reset(); return s }

	require.Equal(t, http.StatusUnauthorized, call(h, "GET", "/admin/api/view", "nobody").Code)
	require.Empty(t, took(), "a plain refusal is not logged")
	require.Equal(t, http.StatusInternalServerError, call(h, "GET", "/admin/api/view", "broken").Code)
	line := took()
	require.Contains(t, line, "[ERROR]")
	require.Contains(t, line, "admin authentication failed")
	require.Contains(t, line, "operation=who-view")

	reasoned := authFunc(func(context.Context, string) (*identity.Person, error) {
		return nil, &errs.Error{Code: errs.Unauthorized, Message: "the token has expired", Err: errors.New("the issuer said: exp in the past")}
	})
	var reasonLogs bytes.Buffer
	k2 := kernel.New(kernel.Deps{AdminAuth: reasoned, Logger: hclog.New(&hclog.LoggerOptions{Output: &reasonLogs, Level: hclog.Info})})
	require.NoError(t, k2.Register(moduleFunc{"who", func(h *kernel.Host) error {
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-view", Method: http.MethodGet, Path: "/view"}, identity.Viewer),
			func(context.Context, *struct{}) (*whoOut, error) { return &whoOut{}, nil })
		return nil
	}}))
	rec := call(k2.Handler(), "GET", "/admin/api/view", "old")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.NotContains(t, rec.Body.String(), "exp in the past", "the caller is not told the issuer's reason")
	require.Contains(t, reasonLogs.String(), "[INFO]")
	require.Contains(t, reasonLogs.String(), "admin token refused")
	require.Contains(t, reasonLogs.String(), "exp in the past", "the operator is")

	require.Equal(t, http.StatusForbidden, call(h, "POST", "/admin/api/approve", "vic").Code)
	line = took()
	require.Contains(t, line, "record a refused admin call")
	require.Contains(t, line, "the log is down")
	require.Equal(t, http.StatusOK, call(h, "POST", "/admin/api/approve", "val").Code)
	require.Empty(t, took(), "a call the gate lets through records and logs nothing")
}

// With the process's metrics, every Admin API call is counted by its
// operation and the status it answered, a call the gate refused too
// (OBS-001); without them the Admin API serves as well.
func TestAdminCallsAreCountedByOperationAndStatus(t *testing.T) {
	m := metrics.New()
	k := kernel.New(kernel.Deps{AdminAuth: people, Metrics: m})
	require.NoError(t, k.Register(moduleFunc{"who", func(h *kernel.Host) error {
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-view", Method: http.MethodGet, Path: "/view"}, identity.Viewer),
			func(context.Context, *struct{}) (*whoOut, error) { return &whoOut{}, nil })
		return nil
	}}))
	h := k.Handler()
	require.Equal(t, http.StatusOK, call(h, "GET", "/admin/api/view", "vic").Code)
	require.Equal(t, http.StatusOK, call(h, "GET", "/admin/api/view", "val").Code)
	require.Equal(t, http.StatusUnauthorized, call(h, "GET", "/admin/api/view", "nobody").Code)
	require.Equal(t, map[string]float64{"who-view 200": 2, "who-view 401": 1}, adminRequests(t, m))

	require.Equal(t, http.StatusOK, call(gated(t, people), "GET", "/admin/api/view", "vic").Code, "no metrics: served all the same")
}

// adminRequests reads pact_admin_requests_total from m's registry, by
// "<operation> <status>".
func adminRequests(t *testing.T, m *metrics.Metrics) map[string]float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != metrics.Namespace+"_admin_requests_total" {
			continue
		}
		for _, c := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range c.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out[labels["operation"]+" "+labels["status"]] = c.GetCounter().GetValue()
		}
	}
	return out
}
