package kernel

// This file writes errors on the plain HTTP routes (health, well-known
// documents, hooks, /connect); the Admin API has adminerr.go, MCP its own.

import (
	"encoding/json"
	"net/http"

	"github.com/pactboard/pact/sdk/errs"
)

// RetryAfterSeconds is the Retry-After of every 503 the board writes: a
// database restart or a drain is over, or another board answers, within
// seconds (docs/operations.md), so clients that honour it come back soon.
const RetryAfterSeconds = "1"

// httpError is the body of a refusal on a plain HTTP route.
type httpError struct {
	Error     errs.Code `json:"error"`
	Message   string    `json:"message"`
	MandateID string    `json:"mandate_id,omitempty"`
}

// WriteError writes e as {"error", "message"[, "mandate_id"]} with status.
// It writes e as given: pass errs.Public(err) for an error whose cause must
// not be shown.
func WriteError(w http.ResponseWriter, status int, e *errs.Error) {
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", RetryAfterSeconds)
	}
	WriteJSON(w, status, httpError{Error: e.Code, Message: e.Message, MandateID: e.MandateID})
}

// WriteJSON writes v as a JSON body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(httpError{Error: errs.Internal, Message: errs.Public(nil).Message})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
