package kernel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// authFunc is a func-field fake of the authenticator: the real one
// (core/auth) is tested against a real issuer and database.
type authFunc func(ctx context.Context, authorization string) (*identity.Person, error)

func (f authFunc) Authenticate(ctx context.Context, a string) (*identity.Person, error) {
	return f(ctx, a)
}

// people answers "Bearer <id>" with that person.
var people = authFunc(func(_ context.Context, a string) (*identity.Person, error) {
	switch a {
	case "Bearer ana":
		return &identity.Person{ID: "ana", Role: identity.Owner}, nil
	case "Bearer val":
		return &identity.Person{ID: "val", Role: identity.Approver}, nil
	case "Bearer vic":
		return &identity.Person{ID: "vic", Role: identity.Viewer}, nil
	case "Bearer stranger":
		return nil, errs.E(errs.NotRegistered, "not a person here")
	case "Bearer broken":
		return nil, errs.Wrap(errs.E(errs.Internal, "db"), "sign in")
	}
	return nil, errs.E(errs.Unauthorized, "bad token")
})

type whoOut struct {
	Body struct {
		ID string `json:"id"`
	}
}

func gated(t *testing.T, auth kernel.AdminAuthenticator) http.Handler {
	t.Helper()
	k := kernel.New(kernel.Deps{AdminAuth: auth})
	require.NoError(t, k.Register(moduleFunc{"who", func(h *kernel.Host) error {
		who := func(ctx context.Context, _ *struct{}) (*whoOut, error) {
			out := &whoOut{}
			if p := kernel.AdminPerson(ctx); p != nil {
				out.Body.ID = p.ID
			}
			return out, nil
		}
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-view", Method: http.MethodGet, Path: "/view"}, identity.Viewer), who)
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-approve", Method: http.MethodPost, Path: "/approve", Errors: []int{404, 401}}, identity.Approver), who)
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-own", Method: http.MethodPost, Path: "/own"}, identity.Owner), who)
		huma.Register(h.Admin(), huma.Operation{OperationID: "who-public", Method: http.MethodGet, Path: "/public", Metadata: public}, who)
		return nil
	}}))
	return k.Handler()
}

func call(h http.Handler, method, path, token string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestAdminGateEnforcesEachOperationsRole(t *testing.T) {
	h := gated(t, people)
	for _, tc := range []struct {
		method, path, token string
		status              int
		body                string
	}{
		{"GET", "/admin/api/view", "vic", 200, `{"id":"vic"}`},
		{"POST", "/admin/api/approve", "vic", 403, `{"error":"forbidden","message":"vic is viewer; this needs approver"}`},
		{"POST", "/admin/api/approve", "val", 200, `{"id":"val"}`},
		{"POST", "/admin/api/own", "val", 403, `{"error":"forbidden","message":"val is approver; this needs owner"}`},
		{"POST", "/admin/api/own", "ana", 200, `{"id":"ana"}`},
		{"GET", "/admin/api/view", "", 401, `{"error":"unauthorized","message":"bad token"}`},
		{"GET", "/admin/api/view", "stranger", 403, `{"error":"not_registered","message":"not a person here"}`},
		{"GET", "/admin/api/view", "broken", 500, `{"error":"internal","message":"` + errs.Public(nil).Message + `"}`},
		{"GET", "/admin/api/public", "", 200, `{"id":""}`},
	} {
		t.Run(tc.method+tc.path+"/"+tc.token, func(t *testing.T) {
			rec := call(h, tc.method, tc.path, tc.token)
			require.Equal(t, tc.status, rec.Code)
			require.JSONEq(t, tc.body, rec.Body.String())
			require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
			require.Contains(t, rec.Header().Get("Content-Type"), "application/json")
			if tc.status == 401 {
				require.Contains(t, rec.Header().Get("WWW-Authenticate"), "Bearer")
			}
		})
	}
}

// An operation that records its refusals is told of the gate's, with the
// call's path parameters, before the refusal is answered.
func TestAdminGateRecordsRefusalsWhereAskedTo(t *testing.T) {
	var recorded []string
	k := kernel.New(kernel.Deps{AdminAuth: people})
	require.NoError(t, k.Register(moduleFunc{"rec", func(h *kernel.Host) error {
		rec := func(_ context.Context, p *identity.Person, param func(string) string, refusal error) error {
			recorded = append(recorded, p.ID+" "+param("thing")+" "+string(errs.CodeOf(refusal)))
			return nil
		}
		op := kernel.AdminOp(huma.Operation{OperationID: "rec-close", Method: http.MethodPost, Path: "/things/{thing}/close"}, identity.Approver)
		huma.Register(h.Admin(), kernel.RecordRefusals(op, rec), func(context.Context, *struct {
			Thing string `path:"thing"`
		}) (*whoOut, error) {
			return &whoOut{}, nil
		})
		return nil
	}}))
	h := k.Handler()
	require.Equal(t, http.StatusForbidden, call(h, "POST", "/admin/api/things/t1/close", "vic").Code)
	require.Equal(t, http.StatusOK, call(h, "POST", "/admin/api/things/t2/close", "val").Code)
	require.Equal(t, []string{"vic t1 forbidden"}, recorded, "only the refusal, with its path parameter")
}

func TestAdminGateWithoutAuthenticatorRefusesEveryone(t *testing.T) {
	rec := call(gated(t, nil), "GET", "/admin/api/view", "ana")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), "OAuth is not configured")
}

func TestAdminOperationsMustDeclareTheirGate(t *testing.T) {
	noop := func(context.Context, *struct{}) (*whoOut, error) { return &whoOut{}, nil }
	for name, op := range map[string]huma.Operation{
		"no role":      {OperationID: "x-a", Method: http.MethodGet, Path: "/a"},
		"bad role":     {OperationID: "x-b", Method: http.MethodGet, Path: "/b", Metadata: map[string]any{kernel.MetaRole: identity.Role("admin")}},
		"undocumented": {OperationID: "x-c", Method: http.MethodGet, Path: "/c", Metadata: map[string]any{kernel.MetaRole: identity.Viewer}},
	} {
		t.Run(name, func(t *testing.T) {
			k := kernel.New(kernel.Deps{AdminAuth: people})
			err := k.Register(moduleFunc{"x", func(h *kernel.Host) error {
				huma.Register(h.Admin(), op, noop)
				return nil
			}})
			require.ErrorContains(t, err, "module x: admin operation "+op.OperationID)
		})
	}
}

func TestAdminOpDocumentsTheGate(t *testing.T) {
	k := kernel.New(kernel.Deps{AdminAuth: people})
	require.NoError(t, k.Register(moduleFunc{"who", func(h *kernel.Host) error {
		huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "who-approve", Method: http.MethodPost,
			Path: "/approve", Errors: []int{404, 401}}, identity.Approver),
			func(context.Context, *struct{}) (*whoOut, error) { return &whoOut{}, nil })
		return nil
	}}))
	op := k.OpenAPI().Paths["/admin/api/approve"].Post
	require.Equal(t, []map[string][]string{{"bearer": {}}, {"console": {}}}, op.Security, "a bearer token, or the console's session cookie")
	for _, status := range []string{"401", "403", "404"} {
		require.Contains(t, op.Responses, status)
	}
	require.Equal(t, identity.Approver, op.Metadata[kernel.MetaRole])
	require.Equal(t, "approver", op.Extensions[kernel.LeastRoleExtension], "the document states the least role")
}
