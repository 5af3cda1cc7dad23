package kernel

// This file is the gate of the Admin API: every operation registered on
// Host.Admin() declares who may call it, and the group's middleware checks
// it before the handler runs.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// AdminAuthenticator turns an Admin API request's Authorization header into
// the person making it. core/auth.Admin is the board's.
type AdminAuthenticator interface {
	// Authenticate: unauthorized (no or a bad token), not_registered,
	// account_disabled, unavailable.
	Authenticate(ctx context.Context, authorization string) (*identity.Person, error)
}

// AdminVerifier is an AdminAuthenticator that can also check a token alone,
// for an account that is no person yet (sign-up). core/auth.Admin is one.
type AdminVerifier interface {
	// Verify: unauthorized (no or a bad token), unavailable.
	Verify(ctx context.Context, authorization string) (*authissuer.Identity, error)
}

// AdminVerifier returns what checks an Admin API request's Authorization
// header alone and returns the account it proves, person or not, for a
// public operation that authenticates its caller itself (sign-up): the
// board's authenticator when it is an AdminVerifier, else one refusing
// every token. Modules keep it past Register.
func (h *Host) AdminVerifier() AdminVerifier {
	if v, ok := h.k.deps.AdminAuth.(AdminVerifier); ok {
		return v
	}
	return noVerifier{}
}

type noVerifier struct{}

func (noVerifier) Verify(context.Context, string) (*authissuer.Identity, error) {
	return nil, errs.E(errs.Unauthorized, "OAuth is not configured on this board (PACT_AUTH_ISSUER)")
}

// Metadata keys of Admin API operations.
const (
	// MetaRole holds the identity.Role an operation needs at least.
	MetaRole = "role"
	// MetaPublic marks an operation that authenticates its caller itself
	// (sign-up, whose caller is not a person yet).
	MetaPublic = "public"
	// MetaRefusals holds an operation's RefusalRecorder (RecordRefusals).
	MetaRefusals = "refusals"
	// LeastRoleExtension is the OpenAPI extension that states a gated
	// operation's least role (viewer, approver or owner) in docs/openapi.json.
	LeastRoleExtension = "x-pact-least-role"
	// AnyAccount is the least role of an operation that checks its bearer
	// itself and takes any signed-in account, person or not (sign-up,
	// invitations).
	AnyAccount = "account"
)

// RefusalRecorder records the gate's refusal of a person's call to an
// operation whose refusals belong on a record (a pact's, say): param reads
// the call's path parameters. It runs before the refusal is answered; an
// error it returns is logged, and the caller still gets the refusal.
type RefusalRecorder func(ctx context.Context, p *identity.Person, param func(name string) string, refusal error) error

// RecordRefusals has op's role refusals recorded by rec: the gate refuses
// a person below op's least role before the handler runs, so without it
// such a refusal leaves no entry.
func RecordRefusals(op huma.Operation, rec RefusalRecorder) huma.Operation {
	meta := map[string]any{MetaRefusals: rec}
	for k, v := range op.Metadata {
		meta[k] = v
	}
	op.Metadata = meta
	return op
}

// ConsoleSecurity names the console's session cookie among the Admin API's
// security schemes.
const ConsoleSecurity = "console"

// AdminSecurity is how a caller of the Admin API signs in: a bearer token,
// or the console's session cookie in its place.
func AdminSecurity() []map[string][]string {
	return []map[string][]string{{"bearer": {}}, {ConsoleSecurity: {}}}
}

// AdminOp prepares op for huma.Register on Host.Admin(): people of role min
// or above may call it, it is documented as taking a bearer token or the
// console's session cookie (AdminSecurity), and its
// 401 and 403 answers are declared with the errors it already lists (huma
// documents only the errors an Operation carries when it is registered).
func AdminOp(op huma.Operation, min identity.Role) huma.Operation {
	meta := map[string]any{MetaRole: min}
	for k, v := range op.Metadata {
		meta[k] = v
	}
	op.Metadata = meta
	// The least role is part of the contract: a client (the web console
	// among them) shows no control its person's role would be refused.
	ext := map[string]any{LeastRoleExtension: string(min)}
	for k, v := range op.Extensions {
		ext[k] = v
	}
	op.Extensions = ext
	op.Security = AdminSecurity()
	// Every operation can answer these: the gate's 401 and 403, and 500 and
	// 503 when something below fails; one with a body, 413 over its limit.
	always := []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusInternalServerError, http.StatusServiceUnavailable}
	switch op.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		always = append(always, http.StatusRequestEntityTooLarge)
	}
	op.Errors = append(always, op.Errors...)
	slices.Sort(op.Errors)
	op.Errors = slices.Compact(op.Errors)
	return op
}

type personKey struct{}

// AdminPerson returns the person calling an Admin API operation, or nil on
// a public operation.
func AdminPerson(ctx context.Context) *identity.Person {
	p, _ := ctx.Value(personKey{}).(*identity.Person)
	return p
}

// SignedIn returns the person calling an Admin API operation that is not
// public; without one (a handler wired as public by mistake) it refuses
// with unauthorized rather than act as nobody.
func SignedIn(ctx context.Context) (*identity.Person, error) {
	p := AdminPerson(ctx)
	if p == nil {
		return nil, errs.E(errs.Unauthorized, "no signed-in person on this request")
	}
	return p, nil
}

// checkAdminOperation refuses, at registration, an operation that says
// neither who may call it nor that it is public, so no route can forget
// the gate. Its panic becomes the module's Register error.
func checkAdminOperation(op *huma.Operation, next func(*huma.Operation)) {
	if public, _ := op.Metadata[MetaPublic].(bool); !public {
		role, _ := op.Metadata[MetaRole].(identity.Role)
		if !role.Valid() {
			panic(fmt.Sprintf("admin operation %s must name its least role (kernel.AdminOp) or be marked public", op.OperationID))
		}
		if op.Responses["401"] == nil || op.Responses["403"] == nil {
			panic(fmt.Sprintf("admin operation %s must declare its 401 and 403 answers in Errors (kernel.AdminOp)", op.OperationID))
		}
	}
	next(op)
}

// adminGate authenticates the caller of every non-public operation and
// checks their role, then hands the person to the handler (AdminPerson).
// No Admin API answer may be cached.
func (k *Kernel) adminGate(ctx huma.Context, next func(huma.Context)) {
	ctx.SetHeader("Cache-Control", "no-store")
	op := ctx.Operation()
	if public, _ := op.Metadata[MetaPublic].(bool); public {
		next(ctx)
		return
	}
	// A console session (a cookie, no Authorization header) signs in as
	// a bearer token would (docs/console.md).
	p, err := k.sessionPerson(ctx.Context(), ctx.Method(), ctx.Header,
		func(c string) { ctx.AppendHeader("Set-Cookie", c) })
	if err != nil {
		k.writeAdminError(ctx, err)
		return
	}
	if p == nil {
		if k.deps.AdminAuth == nil {
			k.writeAdminError(ctx, errs.E(errs.Unauthorized, "OAuth is not configured on this board (PACT_AUTH_ISSUER)"))
			return
		}
		if p, err = k.deps.AdminAuth.Authenticate(ctx.Context(), ctx.Header("Authorization")); err != nil {
			k.writeAdminError(ctx, err)
			return
		}
	}
	if min, _ := op.Metadata[MetaRole].(identity.Role); !p.Role.AtLeast(min) {
		refusal := errs.E(errs.Forbidden, "%s is %s; this needs %s", p.ID, p.Role, min)
		if rec, ok := op.Metadata[MetaRefusals].(RefusalRecorder); ok {
			if err := rec(context.WithoutCancel(ctx.Context()), p, ctx.Param, refusal); err != nil {
				k.logger.Error("record a refused admin call", "operation", op.OperationID, "person", p.ID, "error", err)
			}
		}
		k.writeAdminError(ctx, refusal)
		return
	}
	next(huma.WithValue(ctx, personKey{}, p))
}

// writeAdminError answers with err in the Admin API's error model.
func (k *Kernel) writeAdminError(ctx huma.Context, err error) {
	ae := ToAdminError(err)
	if ae.GetStatus() >= 500 {
		k.logger.Error("admin authentication failed", "operation", ctx.Operation().OperationID, "error", err)
	} else if e, ok := errs.As(err); ok && e.Err != nil { // the issuer's reason, which the caller is not told
		k.logger.Info("admin token refused", "operation", ctx.Operation().OperationID, "error", err)
	}
	if ae.GetStatus() == http.StatusUnauthorized {
		ctx.SetHeader("WWW-Authenticate", `Bearer realm="PACT Board Admin API"`)
	}
	ctx.SetHeader("Content-Type", "application/json")
	ctx.SetStatus(ae.GetStatus())
	_ = json.NewEncoder(ctx.BodyWriter()).Encode(ae)
}
