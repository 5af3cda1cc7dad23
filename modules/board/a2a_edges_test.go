package board_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
)

// a2aPost is one POST of body to agent's A2A endpoint with token (none
// when empty) and headers: the HTTP status, the response's headers and
// its decoded JSON-RPC response.
func (w *world) a2aPost(agent, token, body string, headers map[string]string) (int, http.Header, map[string]any) {
	w.T.Helper()
	all := map[string]string{"Content-Type": "application/json"}
	for k, v := range headers {
		all[k] = v
	}
	return w.request(http.MethodPost, "/a2a/a/"+agent, token, body, all)
}

// a2aErrorOf is the JSON-RPC error of out, failing the test when it has
// none.
func a2aErrorOf(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	e, ok := out["error"].(map[string]any)
	require.True(t, ok, "an error: %v", out)
	return e
}

// errorInfo is the google.rpc.ErrorInfo of a JSON-RPC error.
func errorInfo(t *testing.T, e map[string]any) map[string]any {
	t.Helper()
	data, _ := e["data"].([]any)
	for _, d := range data {
		if m, ok := d.(map[string]any); ok && m["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" {
			return m
		}
	}
	t.Fatalf("the error has no ErrorInfo: %v", e)
	return nil
}

// A request the board refuses for want of a token (401) challenges the
// client with WWW-Authenticate: Bearer, as RFC 9110 asks of a 401; a
// request whose token proved who asks but reaches an agent of another
// client (404, docs/a2a.md "Errors") is no authentication problem and
// carries no challenge, which would send a client to look for another
// token.
func TestA2AChallengesForATokenOnlyWhenItRefusesOne(t *testing.T) {
	w := newA2AWorld(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`
	v1 := map[string]string{"A2A-Version": "1.0"}

	status, header, out := w.a2aPost("a2a-web", "", body, v1)
	require.Equal(t, http.StatusUnauthorized, status, "%v", out)
	require.Equal(t, `Bearer realm="PACT Board A2A"`, header.Get("WWW-Authenticate"))
	require.Equal(t, float64(-32000), a2aErrorOf(t, out)["code"])

	status, header, out = w.a2aPost("code-web", w.Token("code-web"), body, v1)
	require.Equal(t, http.StatusNotFound, status, "%v", out)
	require.Contains(t, a2aErrorOf(t, out)["message"], "connects over MCP at /mcp/a/code-web")
	require.Empty(t, header.Values("WWW-Authenticate"), "a 404 challenges for no token")
}

// The -32009 refusal of a version the board does not speak names the
// version the client sent: "0.3 (no A2A-Version header)" when it sent no
// header (A2A's default is 0.3), the header's own value otherwise, and
// never the missing-header words for a header that was sent.
func TestA2AVersionRefusalNamesTheVersionTheClientSent(t *testing.T) {
	w := newA2AWorld(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`
	token := w.Token("a2a-web")

	status, _, out := w.a2aPost("a2a-web", token, body, nil)
	require.Equal(t, 200, status)
	e := a2aErrorOf(t, out)
	require.Equal(t, float64(-32009), e["code"])
	require.Contains(t, e["message"], "not 0.3 (no A2A-Version header): send the header A2A-Version: 1.0")

	status, _, out = w.a2aPost("a2a-web", token, body, map[string]string{"A2A-Version": "0.3"})
	require.Equal(t, 200, status)
	e = a2aErrorOf(t, out)
	require.Equal(t, float64(-32009), e["code"])
	require.Contains(t, e["message"], "not 0.3: send the header A2A-Version: 1.0")
	require.NotContains(t, e["message"], "no A2A-Version header", "the client sent a header")
}

// The board's limit on a request is 1 MiB (docs/a2a.md, "Errors"): a
// request of exactly 1,048,576 bytes is served, one byte more is refused
// with HTTP 413 and -32600.
func TestA2AServesARequestOfExactlyTheBodyLimit(t *testing.T) {
	w := newA2AWorld(t)
	const limit = 1 << 20
	call := `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`
	token := w.Token("a2a-web")
	v1 := map[string]string{"A2A-Version": "1.0"}

	body := call + strings.Repeat(" ", limit-len(call))
	require.Len(t, body, limit)
	status, _, out := w.a2aPost("a2a-web", token, body, v1)
	require.Equal(t, 200, status, "%v", out["error"])
	require.Nil(t, out["error"])
	require.Equal(t, "a2a-web", out["result"].(map[string]any)["name"])

	status, _, out = w.a2aPost("a2a-web", token, body+" ", v1)
	require.Equal(t, http.StatusRequestEntityTooLarge, status)
	require.Equal(t, float64(-32600), a2aErrorOf(t, out)["code"])
}

// When the board cannot read the agent behind a live token (its database
// refuses the read), the client gets HTTP 503 and -32603 and the operator
// an error log "a2a: read agent" naming the agent and the database's
// error, the only trace of why.
func TestA2ALogsWhyItCannotReadTheAgent(t *testing.T) {
	logs := &logtest.Buffer{}
	w := configWorld(t, kerneltest.Options{Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Error})}, nil)
	w.agent("a2a-web", "a2a", nil, "web")
	token := w.Token("a2a-web")
	w.Exec(`ALTER TABLE agent_presence RENAME TO agent_presence_gone`)

	status, _, out := w.a2aPost("a2a-web", token, `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`,
		map[string]string{"A2A-Version": "1.0"})
	require.Equal(t, http.StatusServiceUnavailable, status, "%v", out)
	e := a2aErrorOf(t, out)
	require.Equal(t, float64(-32603), e["code"])
	require.Contains(t, e["message"], "cannot read agent a2a-web")
	line := logs.Line("a2a: read agent")
	require.NotEmpty(t, line, "the failed read is logged: %s", logs.String())
	require.Contains(t, line, "agent=a2a-web")
	require.Contains(t, line, "agent_presence")
}

// A -32000 refusal names the mandate concerned in its ErrorInfo's
// metadata (mandateId) when there is one, as the refusal of an agent
// whose root mandate was revoked does (docs/a2a.md, "Errors"), and
// carries no metadata when no mandate is concerned (a task only its
// poster may cancel), never an empty mandateId.
func TestA2ARefusalNamesTheMandateOnlyWhenOneIsConcerned(t *testing.T) {
	w := newA2AWorld(t)
	others := w.post("code-web", "web", "Not the A2A agent's", nil)

	_, out := w.a2a("a2a-web", "CancelTask", map[string]any{"id": others})
	e := a2aErrorOf(t, out)
	require.Equal(t, float64(-32000), e["code"], "%v", e)
	require.Contains(t, e["message"], "only its poster may cancel it")
	require.NotContains(t, errorInfo(t, e), "metadata", "no mandate is concerned")

	w.Exec(`UPDATE mandates SET revoked_at = now() WHERE id = ?`, w.Root("a2a-web"))
	_, out = w.a2a("a2a-web", "SendMessage", map[string]any{"message": userMessage("While revoked", nil),
		"configuration": map[string]any{"returnImmediately": true}})
	e = a2aErrorOf(t, out)
	require.Equal(t, float64(-32000), e["code"], "%v", e)
	info := errorInfo(t, e)
	require.Equal(t, "mandate_revoked", info["reason"], "%v", e)
	require.Equal(t, map[string]any{"mandateId": w.Root("a2a-web")}, info["metadata"], "%v", e)
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM tasks WHERE created_by = 'a2a-web'`))
}

// resealWorld is a board whose logs at Info and above go to logs, with
// the A2A agent a2a-web and the remote agent remote-web.
func resealWorld(t *testing.T, logs *logtest.Buffer) *world {
	w := configWorld(t, kerneltest.Options{Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})}, nil)
	w.agent("a2a-web", "a2a", nil, "web")
	w.agent("remote-web", "a2a-remote", nil, "web")
	return w
}

// runReseal runs w's workers until the reseal worker has finished, and
// returns what the board logged by then.
func runReseal(t *testing.T, w *world, logs *logtest.Buffer) string {
	t.Helper()
	runKernel(t, w.Kernel)
	require.Eventually(t, func() bool { return logs.Contains("a2a-reseal: worker finished") },
		30*time.Second, 10*time.Millisecond, "the reseal worker finished: %s", logs.String())
	return logs.String()
}

// The reseal worker that runs at start tells the operator what it did,
// and only that: how many values it sealed again under the active key
// when there were some, nothing when every value was already sealed
// (not "values=0"), and a warning with the database's error when it
// could not read the values, which then stay under older keys.
func TestTheResealWorkerLogsOnlyWhatItDid(t *testing.T) {
	const sealed = "sealed A2A push values and remote credentials under the board's active key"
	const failed = "stay sealed under older keys until the next start"
	t.Run("NothingStale", func(t *testing.T) {
		logs := &logtest.Buffer{}
		got := runReseal(t, resealWorld(t, logs), logs)
		require.NotContains(t, got, sealed, "nothing was sealed again")
		require.NotContains(t, got, failed, "nothing failed")
	})
	t.Run("OneClearCredential", func(t *testing.T) {
		logs := &logtest.Buffer{}
		w := resealWorld(t, logs)
		w.Exec(`INSERT INTO a2a_remotes (agent_id, org_id, card_url, auth_header, set_by)
			VALUES ('remote-web', 'default', 'https://agent.example.com/card', 'Bearer clear-remote', 'ana')`)
		got := runReseal(t, w, logs)
		line := logs.Line(sealed)
		require.NotEmpty(t, line, "the sealing is logged: %s", got)
		require.Contains(t, line, "values=1")
		require.NotContains(t, got, failed)
		require.Equal(t, 1, w.Count(`SELECT count(*) FROM a2a_remotes WHERE auth_header LIKE 'sealed:v1:%'`))
	})
	t.Run("ValuesUnreadable", func(t *testing.T) {
		logs := &logtest.Buffer{}
		w := resealWorld(t, logs)
		w.Exec(`ALTER TABLE a2a_push_signing RENAME TO a2a_push_signing_gone`)
		got := runReseal(t, w, logs)
		line := logs.Line(failed)
		require.NotEmpty(t, line, "the failure is logged: %s", got)
		require.Contains(t, line, "[WARN]")
		require.Contains(t, line, "a2a_push_signing")
		require.NotContains(t, got, sealed)
	})
}
