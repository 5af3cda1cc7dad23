package a2a

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRequestRefusesWhatIsNoSingleRequest(t *testing.T) {
	for body, code := range map[string]int{
		`{`: CodeParseError, ``: CodeParseError, `[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`: CodeInvalidRequest,
		`"GetTask"`: CodeInvalidRequest, ` [1]`: CodeInvalidRequest,
		`{"jsonrpc":"1.0","id":1,"method":"GetTask"}`:    CodeInvalidRequest,
		`{"id":1,"method":"GetTask"}`:                    CodeInvalidRequest,
		`{"jsonrpc":"2.0","method":"GetTask"}`:           CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":null,"method":"GetTask"}`: CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":{},"method":"GetTask"}`:   CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":true,"method":"GetTask"}`: CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":1}`:                       CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":1,"method":""}`:           CodeInvalidRequest,
	} {
		_, e := ParseRequest([]byte(body))
		require.NotNil(t, e, body)
		require.Equal(t, code, e.Code, "%s: %s", body, e.Message)
	}
	for _, id := range []string{`1`, `-3`, `0`, `"r-1"`, `9`} {
		req, e := ParseRequest([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"GetTask","params":{"id":"t"}}`))
		require.Nil(t, e, id)
		require.Equal(t, "GetTask", req.Method)
		require.JSONEq(t, id, string(req.ID))
		require.JSONEq(t, `{"id":"t"}`, string(req.Params))
	}
	// The id of a refused request is kept for the answer when it is one.
	req, e := ParseRequest([]byte(`{"jsonrpc":"1.0","id":"x","method":"GetTask"}`))
	require.NotNil(t, e)
	require.JSONEq(t, `"x"`, string(Failure(req.ID, e).ID))
}

func TestDecodeParamsRefusesMissingAndUnknownFields(t *testing.T) {
	var p TaskRequest
	for _, params := range []string{``, `null`, `{"id":"t","historyLen":1}`, `[1]`, `{"id":7}`} {
		e := DecodeParams(json.RawMessage(params), &p)
		require.NotNil(t, e, params)
		require.Equal(t, CodeInvalidParams, e.Code, params)
	}
	require.Nil(t, DecodeParams(json.RawMessage(`{"id":"t","historyLength":2}`), &p))
	require.Equal(t, "t", p.ID)
	require.Equal(t, int32(2), *p.HistoryLength)
}

func TestResponsesAndErrorsAreJSONRPC(t *testing.T) {
	for id, want := range map[string]string{``: `null`, `{}`: `null`, `true`: `null`, `"a"`: `"a"`, `12`: `12`} {
		b, err := json.Marshal(Failure(json.RawMessage(id), Errorf(CodeInternal, "x %d", 1)))
		require.NoError(t, err)
		var r map[string]any
		require.NoError(t, json.Unmarshal(b, &r))
		require.Equal(t, "2.0", r["jsonrpc"])
		got, _ := json.Marshal(r["id"])
		require.JSONEq(t, want, string(got), id)
		require.Equal(t, map[string]any{"code": float64(CodeInternal), "message": "x 1"}, r["error"])
		require.NotContains(t, r, "result")
	}
	b, _ := json.Marshal(Result(json.RawMessage(`3`), map[string]int{"a": 1}))
	require.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{"a":1}}`, string(b))

	e := Errorf(CodeTaskNotFound, "task %s", "t").WithReason("d", "r", map[string]string{"k": "v"}).WithReason("d", "s", nil).
		WithField("message.role", "must be user")
	require.Equal(t, "a2a error -32001: task t", e.Error())
	require.Len(t, e.Data, 3)
	require.Equal(t, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "r", "domain": "d",
		"metadata": map[string]string{"k": "v"}}, e.Data[0])
	require.NotContains(t, e.Data[1], "metadata")
	require.Equal(t, "type.googleapis.com/google.rpc.BadRequest", e.Data[2]["@type"])
	require.Equal(t, []map[string]string{{"field": "message.role", "description": "must be user"}}, e.Data[2]["fieldViolations"])
}

func TestTheBindingHasElevenMethodsAndTheStatesTheirKinds(t *testing.T) {
	ms := Methods()
	require.Len(t, ms, 11)
	sorted := slices.Clone(ms)
	slices.Sort(sorted)
	require.Len(t, slices.Compact(sorted), 11, "each method once")
	for s, kind := range map[TaskState]string{StateSubmitted: "", StateWorking: "", StateCompleted: "terminal", StateFailed: "terminal",
		StateCanceled: "terminal", StateRejected: "terminal", StateInputRequired: "interrupted", StateAuthRequired: "interrupted"} {
		require.Equal(t, kind == "terminal", s.Terminal(), s)
		require.Equal(t, kind == "interrupted", s.Interrupted(), s)
	}
}

func TestTheCardsJSONRPCInterfaceIsVersionOne(t *testing.T) {
	c := &AgentCard{SupportedInterfaces: []AgentInterface{{URL: "g", ProtocolBinding: "GRPC", ProtocolVersion: "1.0"},
		{URL: "old", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"}, {URL: "ten", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.01"},
		{URL: "one", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0.1"}}}
	u, ok := c.JSONRPCURL()
	require.True(t, ok)
	require.Equal(t, "one", u)
	c.SupportedInterfaces = c.SupportedInterfaces[:3]
	_, ok = c.JSONRPCURL()
	require.False(t, ok)
	c.SupportedInterfaces = append(c.SupportedInterfaces, AgentInterface{URL: "exact", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"})
	u, _ = c.JSONRPCURL()
	require.Equal(t, "exact", u)
	require.Equal(t, "hi", *TextPart("hi").Text)
	require.Equal(t, "application/json", DataPart(json.RawMessage(`{}`)).MediaType)
}

// The codes are the specification's (docs/specs/a2a.md, "Error code
// mappings"), number for number.
func TestTheErrorCodesAreTheSpecifications(t *testing.T) {
	for got, want := range map[int]int{CodeParseError: -32700, CodeInvalidRequest: -32600, CodeMethodNotFound: -32601,
		CodeInvalidParams: -32602, CodeInternal: -32603, CodeTaskNotFound: -32001, CodeTaskNotCancelable: -32002,
		CodePushNotSupported: -32003, CodeUnsupportedOperation: -32004, CodeContentTypeNotSupported: -32005,
		CodeInvalidAgentResponse: -32006, CodeExtendedCardNotConfigured: -32007, CodeExtensionSupportRequired: -32008,
		CodeVersionNotSupported: -32009, CodeRefused: -32000} {
		require.Equal(t, want, got)
	}
	require.Len(t, map[int]bool{CodeParseError: true, CodeInvalidRequest: true, CodeMethodNotFound: true, CodeInvalidParams: true,
		CodeInternal: true, CodeTaskNotFound: true, CodeTaskNotCancelable: true, CodePushNotSupported: true,
		CodeUnsupportedOperation: true, CodeContentTypeNotSupported: true, CodeInvalidAgentResponse: true,
		CodeExtendedCardNotConfigured: true, CodeExtensionSupportRequired: true, CodeVersionNotSupported: true, CodeRefused: true}, 15)
	_, e := ParseRequest([]byte(`[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`))
	require.Contains(t, e.Message, "batches are not served", "a batch is named as one")
}
