package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The JSON-RPC methods of the protocol (docs/specs/a2a.md, "Method
// mapping").
const (
	MethodSendMessage          = "SendMessage"
	MethodSendStreamingMessage = "SendStreamingMessage"
	MethodGetTask              = "GetTask"
	MethodListTasks            = "ListTasks"
	MethodCancelTask           = "CancelTask"
	MethodSubscribeToTask      = "SubscribeToTask"
	MethodCreatePushConfig     = "CreateTaskPushNotificationConfig"
	MethodGetPushConfig        = "GetTaskPushNotificationConfig"
	MethodListPushConfigs      = "ListTaskPushNotificationConfigs"
	MethodDeletePushConfig     = "DeleteTaskPushNotificationConfig"
	MethodGetExtendedAgentCard = "GetExtendedAgentCard"
)

// Methods lists every method of the binding, so that a test can take
// its population from here.
func Methods() []string {
	return []string{MethodSendMessage, MethodSendStreamingMessage, MethodGetTask, MethodListTasks, MethodCancelTask,
		MethodSubscribeToTask, MethodCreatePushConfig, MethodGetPushConfig, MethodListPushConfigs, MethodDeletePushConfig,
		MethodGetExtendedAgentCard}
}

// Error codes: JSON-RPC's own, then A2A's (docs/specs/a2a.md, "Error code
// mappings").
const (
	CodeParseError                = -32700
	CodeInvalidRequest            = -32600
	CodeMethodNotFound            = -32601
	CodeInvalidParams             = -32602
	CodeInternal                  = -32603
	CodeTaskNotFound              = -32001
	CodeTaskNotCancelable         = -32002
	CodePushNotSupported          = -32003
	CodeUnsupportedOperation      = -32004
	CodeContentTypeNotSupported   = -32005
	CodeInvalidAgentResponse      = -32006
	CodeExtendedCardNotConfigured = -32007
	CodeExtensionSupportRequired  = -32008
	CodeVersionNotSupported       = -32009
	// CodeRefused is the board's own: a refusal that is none of the
	// above (a mandate, a budget, a paused agent). Its ErrorInfo's reason
	// is the board's error code (docs/errors.md).
	CodeRefused = -32000
)

// ErrorDomain is the ErrorInfo domain of the board's refusals.
const ErrorDomain = "pactboard.dev"

// Request is a JSON-RPC 2.0 request.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Response is a JSON-RPC 2.0 response: a result or an error.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object; Data holds google.rpc detail objects.
type Error struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Data    []map[string]any `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("a2a error %d: %s", e.Code, e.Message) }

// Errorf is an error with code and a message a person can act on.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithReason adds a google.rpc.ErrorInfo naming reason, in domain.
func (e *Error) WithReason(domain, reason string, metadata map[string]string) *Error {
	info := map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": domain}
	if len(metadata) > 0 {
		info["metadata"] = metadata
	}
	e.Data = append(e.Data, info)
	return e
}

// WithField adds a google.rpc.BadRequest naming the field that was wrong.
func (e *Error) WithField(field, description string) *Error {
	e.Data = append(e.Data, map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest",
		"fieldViolations": []map[string]string{{"field": field, "description": description}}})
	return e
}

// ParseRequest reads one JSON-RPC request. A batch, a notification (no
// id) or anything not a request object is refused with the error to
// answer, whose response carries the id when one could be read.
func ParseRequest(body []byte) (Request, *Error) {
	var req Request
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return req, Errorf(CodeParseError, "the body is not JSON")
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return req, Errorf(CodeInvalidRequest, "batches are not served: send one request per HTTP request")
	}
	if err := json.Unmarshal(trimmed, &req); err != nil {
		return Request{}, Errorf(CodeInvalidRequest, "the body is not a JSON-RPC request object: %v", err)
	}
	switch {
	case req.JSONRPC != "2.0":
		return req, Errorf(CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
	case !validID(req.ID):
		return req, Errorf(CodeInvalidRequest, `"id" must be a string or a number; notifications are not served`)
	case req.Method == "":
		return req, Errorf(CodeInvalidRequest, `"method" is missing`)
	}
	return req, nil
}

func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// DecodeParams reads a request's params into v, refusing fields v does
// not name, so a misspelt one never passes silently.
func DecodeParams(params json.RawMessage, v any) *Error {
	if len(params) == 0 || string(params) == "null" {
		return Errorf(CodeInvalidParams, `"params" is missing`)
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(CodeInvalidParams, "the params are not valid: %v", err)
	}
	return nil
}

// Result is a successful response to req.
func Result(id json.RawMessage, v any) Response {
	return Response{JSONRPC: "2.0", ID: id, Result: v}
}

// Failure is an error response to id (null when none could be read).
func Failure(id json.RawMessage, e *Error) Response {
	if len(id) == 0 || !validID(id) {
		id = json.RawMessage("null")
	}
	return Response{JSONRPC: "2.0", ID: id, Error: e}
}
