// Package errs is PACT Board's one error vocabulary. The kernel, the modules and
// the plugins all refuse with these codes, and each boundary (MCP results, the
// Admin API, plugin gRPC, the CLI) translates them exactly once.
package errs

import (
	"errors"
	"fmt"
)

// Code names why a call was refused. The string is the wire value: it appears
// in MCP refusals, Admin API bodies, CLI output and log entries' outcome.
type Code string

// Authority codes: the mandate chain or the board's state refused the call.
const (
	ChainBroken         Code = "chain_broken"
	ScopeExceeded       Code = "scope_exceeded"
	LimitExceeded       Code = "limit_exceeded"
	MandateExpired      Code = "mandate_expired"
	MandateRevoked      Code = "mandate_revoked"
	AlreadyClaimed      Code = "already_claimed"
	DelegationExhausted Code = "delegation_exhausted"
	ProjectMismatch     Code = "project_mismatch"
	ProjectRequired     Code = "project_required"
	AgentPaused         Code = "agent_paused"
	ProjectFrozen       Code = "project_frozen"
	SystemHalted        Code = "system_halted"
	ApprovalPending     Code = "approval_pending"
	ClaimLost           Code = "claim_lost"
	WrongAgent          Code = "wrong_agent"
	AgentUnknown        Code = "agent_unknown"
	NotIssuer           Code = "not_issuer"
)

// Request codes: the input or the caller was refused.
const (
	NotFound          Code = "not_found"
	InvalidRequest    Code = "invalid_request"
	Forbidden         Code = "forbidden"
	NotePinned        Code = "note_pinned"
	HandoffRequired   Code = "handoff_required"
	AgentBusy         Code = "agent_busy"
	IDTaken           Code = "id_taken"
	NotRegistered     Code = "not_registered"
	AccountDisabled   Code = "account_disabled"
	AlreadyRegistered Code = "already_registered"
	SignupClosed      Code = "signup_closed"
	SignupBusy        Code = "signup_busy"
	// TooLarge: a request body over its limit (HTTP 413; Claude Code hooks).
	TooLarge Code = "too_large"
	// MethodNotAllowed: an HTTP method the route does not take (HTTP 405;
	// Claude Code hooks).
	MethodNotAllowed Code = "method_not_allowed"
)

// Codes this implementation adds to the original vocabulary.
const (
	// Unauthorized: no credential, or one the board does not accept (HTTP 401).
	Unauthorized Code = "unauthorized"
	// Unavailable: a dependency (a plugin, the database) is down; retry later.
	Unavailable Code = "unavailable"
	// RateLimited: the caller already holds as many of something as it may
	// at once (waiting calls); let one end and retry.
	RateLimited Code = "rate_limited"
	// ChangedSince: what an Undo would restore was changed again after the
	// change being undone (docs/pacts.md, "Undo").
	ChangedSince Code = "changed_since"
	// Internal: a bug or an unexpected failure. Its message is never shown.
	Internal Code = "internal"
)

// All lists every code in documentation order. docs/errors.md is checked
// against it, so a new code cannot ship undocumented.
func All() []Code {
	return []Code{
		ChainBroken, ScopeExceeded, LimitExceeded, MandateExpired, MandateRevoked,
		AlreadyClaimed, DelegationExhausted, ProjectMismatch, ProjectRequired,
		AgentPaused, ProjectFrozen, SystemHalted, ApprovalPending, ClaimLost,
		WrongAgent, AgentUnknown, NotIssuer,
		NotFound, InvalidRequest, Forbidden, NotePinned, HandoffRequired, AgentBusy,
		IDTaken, NotRegistered, AccountDisabled, AlreadyRegistered, SignupClosed,
		SignupBusy, TooLarge, MethodNotAllowed,
		Unauthorized, Unavailable, RateLimited, ChangedSince, Internal,
	}
}

// Error is a refusal: a code, a message a person can act on, and, for
// authority refusals, the mandate link at fault.
type Error struct {
	Code      Code
	Message   string
	MandateID string
	// Err is the underlying cause, kept for logs; it is never shown to callers.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// E returns a refusal with code and message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Mandate returns a refusal that names the mandate link at fault.
func Mandate(code Code, mandateID string, format string, args ...any) *Error {
	return &Error{Code: code, MandateID: mandateID, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an Internal error around err. op says what was being done; it
// goes to logs, never to callers.
func Wrap(err error, op string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: Internal, Message: op, Err: err}
}

// As returns the refusal inside err, if there is one.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CodeOf returns the code of err: its refusal's code, or Internal for any
// other error, or "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := As(err); ok {
		return e.Code
	}
	return Internal
}

// IsRefusal reports whether err is a deliberate refusal (a coded error other
// than Internal or Unavailable), the kind that is logged with its code.
func IsRefusal(err error) bool {
	e, ok := As(err)
	return ok && e.Code != Internal && e.Code != Unavailable
}

// Public is what a caller may see of err: the refusal itself, or a generic
// Internal error that hides the cause.
func Public(err error) *Error {
	if e, ok := As(err); ok && e.Code != Internal {
		return &Error{Code: e.Code, Message: e.Message, MandateID: e.MandateID}
	}
	return &Error{Code: Internal, Message: "internal error; the board logged the details"}
}
