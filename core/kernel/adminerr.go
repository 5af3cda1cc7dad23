package kernel

// This file is the one translation of errors at the Admin HTTP boundary.

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// AdminError is the body of every Admin API error:
// {"error": code, "message": text, "mandate_id"?: id, "details"?: [...]}.
// huma derives the error schema of the OpenAPI document from it.
type AdminError struct {
	Code      string   `json:"error" doc:"Error code (see docs/errors.md)" example:"not_found"`
	Message   string   `json:"message" doc:"What went wrong, for a person"`
	MandateID string   `json:"mandate_id,omitempty" doc:"The mandate link at fault, for authority refusals"`
	Details   []string `json:"details,omitempty" nullable:"false" doc:"Individual problems, e.g. each failed validation"`
	status    int
}

// Error returns code: message.
func (e *AdminError) Error() string { return e.Code + ": " + e.Message }

// GetStatus returns the HTTP status (huma.StatusError).
func (e *AdminError) GetStatus() int { return e.status }

// GetHeaders adds Retry-After to a 503 (huma.HeadersError), as WriteError
// does on the plain routes.
func (e *AdminError) GetHeaders() http.Header {
	if e.status != http.StatusServiceUnavailable {
		return http.Header{}
	}
	return http.Header{"Retry-After": []string{RetryAfterSeconds}}
}

// ContentType keeps errors on application/json instead of huma's
// application/problem+json (huma.ContentTypeFilter).
func (e *AdminError) ContentType(string) string { return "application/json" }

// AdminStatus is the HTTP status of a refusal with code, per docs/specs/behavior.md
// §2.1; codes it does not name are conflicts (409).
func AdminStatus(code errs.Code) int {
	switch code {
	case errs.InvalidRequest, errs.ProjectRequired, errs.ProjectMismatch, errs.ScopeExceeded, errs.LimitExceeded:
		return http.StatusBadRequest
	case errs.Unauthorized:
		return http.StatusUnauthorized
	case errs.Forbidden, errs.NotRegistered, errs.AccountDisabled, errs.SignupClosed:
		return http.StatusForbidden
	case errs.NotFound:
		return http.StatusNotFound
	case errs.SignupBusy, errs.RateLimited:
		return http.StatusTooManyRequests
	case errs.Internal:
		return http.StatusInternalServerError
	case errs.Unavailable:
		return http.StatusServiceUnavailable
	case errs.TooLarge:
		return http.StatusRequestEntityTooLarge
	case errs.MethodNotAllowed:
		return http.StatusMethodNotAllowed
	}
	return http.StatusConflict // note_pinned, id_taken, already_registered and every other code
}

// ToAdminError translates err for the Admin API: a refusal keeps its code,
// message and mandate id with AdminStatus's status; the database failing
// the call is a 503 unavailable (Public); anything else is a 500 whose
// message hides the cause. An *AdminError passes through; nil stays nil.
func ToAdminError(err error) huma.StatusError {
	if err == nil {
		return nil
	}
	var ae *AdminError
	if errors.As(err, &ae) {
		return ae
	}
	p := Public(err)
	return &AdminError{Code: string(p.Code), Message: p.Message, MandateID: p.MandateID, status: AdminStatus(p.Code)}
}

// NewAdminError builds the error huma writes for its own failures (bad
// request, validation, unknown content type) and for handler errors. cmd
// assigns it to huma.NewError once, before any API is built.
//
// huma hands a handler's error to it as a 500 with the error as a detail;
// a refusal found there is translated by ToAdminError, so admin handlers
// simply return errs values. A 5xx never shows details.
func NewAdminError(status int, msg string, errList ...error) huma.StatusError {
	if status == http.StatusInternalServerError {
		for _, err := range errList {
			if _, ok := errs.As(db.Fault(err)); ok {
				return ToAdminError(err)
			}
		}
	}
	code := statusCode(status)
	if status >= 500 {
		return &AdminError{Code: string(code), Message: errs.Public(nil).Message, status: status}
	}
	e := &AdminError{Code: string(code), Message: msg, status: status}
	for _, err := range errList {
		if err != nil {
			e.Details = append(e.Details, err.Error())
		}
	}
	return e
}

// NewAdminErrorWithContext is NewAdminError that also logs the cause of a
// 5xx with the request's logger. cmd assigns it to huma.NewErrorWithContext.
func NewAdminErrorWithContext(hctx huma.Context, status int, msg string, errList ...error) huma.StatusError {
	e := NewAdminError(status, msg, errList...)
	if e.GetStatus() >= 500 && hctx != nil {
		op := ""
		if o := hctx.Operation(); o != nil {
			op = o.OperationID
		}
		loggerFrom(hctx.Context()).Error("admin call failed", "operation", op, "status", e.GetStatus(),
			"message", msg, "errors", errors.Join(errList...))
	}
	return e
}

// statusCode names the code of an error huma raises itself.
func statusCode(status int) errs.Code {
	switch {
	case status == http.StatusUnauthorized:
		return errs.Unauthorized
	case status == http.StatusForbidden:
		return errs.Forbidden
	case status == http.StatusNotFound:
		return errs.NotFound
	case status == http.StatusServiceUnavailable, status == http.StatusBadGateway, status == http.StatusGatewayTimeout:
		return errs.Unavailable
	case status >= 500:
		return errs.Internal
	}
	return errs.InvalidRequest
}

type loggerKey struct{}

// adminContext puts the kernel's logger on every admin request, for
// NewAdminErrorWithContext.
func (k *Kernel) adminContext(ctx huma.Context, next func(huma.Context)) {
	next(huma.WithValue(ctx, loggerKey{}, k.logger.Named("admin")))
}

func loggerFrom(ctx context.Context) hclog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(hclog.Logger); ok {
		return l
	}
	return hclog.NewNullLogger()
}
