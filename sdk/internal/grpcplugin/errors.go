package grpcplugin

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/pactboard/pact/sdk/errs"
)

// ErrorDomain marks the errdetails.ErrorInfo that carries a PACT error code
// in a gRPC status: Reason is the errs.Code, Metadata["mandate_id"] the
// mandate link at fault. Plugins written in other languages produce the same
// detail to refuse with a code.
const ErrorDomain = "errs.pactboard.dev"

// grpcCode is the gRPC status code a PACT code travels under. Only the
// ErrorInfo detail is authoritative; the status code helps generic gRPC
// tooling.
func grpcCode(c errs.Code) codes.Code {
	switch c {
	case errs.InvalidRequest:
		return codes.InvalidArgument
	case errs.NotFound:
		return codes.NotFound
	case errs.Unauthorized:
		return codes.Unauthenticated
	case errs.Forbidden:
		return codes.PermissionDenied
	case errs.Unavailable:
		return codes.Unavailable
	case errs.Internal:
		return codes.Internal
	case errs.IDTaken, errs.AlreadyRegistered:
		return codes.AlreadyExists
	}
	return codes.FailedPrecondition
}

// ToStatus converts what a plugin implementation returned into a gRPC status
// error, plugin side. A refusal keeps its code, message and mandate id; a
// context error becomes Canceled or DeadlineExceeded; any other error is
// Internal with the error's text (the host logs it and shows nobody).
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	e, ok := errs.As(err)
	if !ok {
		if _, isStatus := status.FromError(err); isStatus {
			return err // already a status
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return status.Error(codes.DeadlineExceeded, err.Error())
		case errors.Is(err, context.Canceled):
			return status.Error(codes.Canceled, err.Error())
		}
		e = &errs.Error{Code: errs.Internal, Message: err.Error()}
	}
	info := &errdetails.ErrorInfo{Domain: ErrorDomain, Reason: string(e.Code)}
	if e.MandateID != "" {
		info.Metadata = map[string]string{"mandate_id": e.MandateID}
	}
	msg := e.Message
	if e.Code == errs.Internal && e.Err != nil {
		msg = fmt.Sprintf("%s: %v", e.Message, e.Err) // for the host's log
	}
	st, derr := status.New(grpcCode(e.Code), msg).WithDetails(info)
	if derr != nil {
		return status.Error(codes.Internal, msg)
	}
	return st.Err()
}

// FromStatus converts an error a gRPC call returned into the project's
// vocabulary, host side. op names the call ("notifier.Deliver") for
// messages. A status carrying a PACT code becomes that *errs.Error; a dead
// or unreachable plugin, a timeout or a cancelled call becomes
// errs.Unavailable; anything else (an unimplemented method, a reply that
// does not decode) becomes errs.Internal saying what went wrong. The gRPC
// error is kept as the cause, so errors.Is(err, context.DeadlineExceeded)
// still works when the caller's context ended.
func FromStatus(ctx context.Context, err error, op string) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return &errs.Error{Code: errs.Unavailable, Message: op + ": plugin unreachable", Err: err}
	}
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetDomain() != ErrorDomain {
			continue
		}
		code := errs.Code(info.GetReason())
		if !slices.Contains(errs.All(), code) {
			return &errs.Error{Code: errs.Internal, Message: fmt.Sprintf("%s: the plugin refused with an unknown code %q: %s", op, code, st.Message())}
		}
		return &errs.Error{Code: code, Message: st.Message(), MandateID: info.GetMetadata()["mandate_id"]}
	}
	cause := err
	switch ctxErr := ctx.Err(); {
	case ctxErr != nil:
		cause = fmt.Errorf("%w (%w)", ctxErr, err)
	case st.Code() == codes.DeadlineExceeded: // gRPC's timer can beat ctx's
		cause = fmt.Errorf("%w (%w)", context.DeadlineExceeded, err)
	}
	switch st.Code() {
	case codes.Unavailable:
		return &errs.Error{Code: errs.Unavailable, Message: op + ": plugin unavailable: " + st.Message(), Err: cause}
	case codes.DeadlineExceeded:
		return &errs.Error{Code: errs.Unavailable, Message: op + ": plugin did not answer in time", Err: cause}
	case codes.Canceled:
		return &errs.Error{Code: errs.Unavailable, Message: op + ": call cancelled", Err: cause}
	case codes.Unimplemented:
		return &errs.Error{Code: errs.Internal, Message: op + ": the plugin does not implement this method (built against another SDK version?): " + st.Message(), Err: cause}
	}
	return &errs.Error{Code: errs.Internal, Message: op + ": plugin failed: " + st.Code().String() + ": " + st.Message(), Err: cause}
}

// Recover turns a panic in a plugin implementation into an Internal error,
// so one bad call does not kill the plugin process. Use as
// defer grpcplugin.Recover(&err) in methods with a named error result.
func Recover(err *error) {
	if p := recover(); p != nil {
		*err = ToStatus(&errs.Error{Code: errs.Internal, Message: fmt.Sprintf("plugin panic: %v", p)})
	}
}
