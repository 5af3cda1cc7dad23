package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/pactboard/pact/sdk/tenuo"
)

// maxCall caps a call's JSON body.
const maxCall = 1 << 20

// callRequest is the body of POST /call. Signature is the holder's proof
// of possession over (leaf id, tool, args, time window), base64url;
// Timestamp is the Unix second the agent signed at.
type callRequest struct {
	Tool         string          `json:"tool"`
	Args         json.RawMessage `json:"args"`
	WarrantStack string          `json:"warrant_stack"`
	Signature    string          `json:"signature"`
	Timestamp    int64           `json:"timestamp"`
}

// refusal is an error with the HTTP status the caller gets.
type refusal struct {
	status int
	msg    string
}

func (r *refusal) Error() string { return r.msg }

func refuse(status int, format string, args ...any) error {
	return &refusal{status, fmt.Sprintf(format, args...)}
}

// ServeHTTP answers POST /call: it verifies the call and, only if every
// check passes, runs the tool.
func (v *Verifier) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/call" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
		return
	}
	var req callRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxCall)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body is not a call: " + err.Error()})
		return
	}
	out, err := v.call(req)
	if err != nil {
		status := http.StatusForbidden
		var rf *refusal
		if errors.As(err, &rf) {
			status = rf.status
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": out})
}

// call runs every check in order: fresh trust state, the stack link by
// link (trusted root, revocations, expiry), the leaf's grant for this
// call, proof of possession, and finally the replay cache.
func (v *Verifier) call(req callRequest) (any, error) {
	now := v.now()
	trust, err := v.current(now)
	if err != nil {
		return nil, err
	}
	if d := now.Sub(time.Unix(req.Timestamp, 0)); d > replayTTL/2 || d < -replayTTL/2 {
		return nil, refuse(http.StatusForbidden, "timestamp is %s away from the verifier's clock", d.Round(time.Second))
	}
	args, err := decodeArgs(req.Args)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "args: %v", err)
	}
	raw, err := tenuo.FromText(req.WarrantStack)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "warrant_stack: %v", err)
	}
	stack, err := tenuo.DecodeStack(raw)
	if err != nil {
		return nil, refuse(http.StatusForbidden, "warrant_stack: %v", err)
	}
	leaf, err := tenuo.VerifyStack(stack, tenuo.VerifyOptions{TrustedRoots: trust.keys, Now: now,
		Revoked: func(id string) bool { return trust.revoked[id] }})
	if err != nil {
		return nil, refuse(http.StatusForbidden, "%v", err)
	}
	if err := leaf.Payload.Authorize(req.Tool, args); err != nil {
		return nil, refuse(http.StatusForbidden, "not authorized: %v", err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(req.Signature)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "signature is not base64url")
	}
	if err := tenuo.VerifyPoP(leaf.Payload, req.Tool, args, sig, now); err != nil {
		return nil, refuse(http.StatusForbidden, "%v", err)
	}
	if !v.seen.claim(sig, now) {
		return nil, refuse(http.StatusConflict, "this signed call was already accepted (replay)")
	}
	return v.tool(req.Tool, args)
}

// decodeArgs reads the call's arguments as the holder signed them:
// integral JSON numbers as integers, other numbers as floats.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&args); err != nil {
		return nil, err
	}
	for k, a := range args {
		args[k] = numbers(a)
	}
	return args, nil
}

// numbers converts json.Number values, recursively, to int64 or float64.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
