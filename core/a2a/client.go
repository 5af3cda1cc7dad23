package a2a

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// maxAnswer bounds what the client reads of one answer or one event: a
// remote agent's artifacts become a task's result, which holds 100,000
// characters.
const maxAnswer = 4 << 20

// ErrMalformed is wrapped by the errors of an answer that is neither A2A
// nor a JSON-RPC error: a card that is not one, a result that does not
// decode. Asking again does not help.
var ErrMalformed = errors.New("not an A2A answer")

// StatusError is an HTTP answer other than 200 that carries no JSON-RPC
// error: a proxy's 502, a 401 of the agent's own.
type StatusError struct {
	Code   int
	Status string
}

func (e *StatusError) Error() string { return "the agent answered " + e.Status }

// Transient reports whether err may pass if the call is made again later:
// the network (refused, reset, timed out), an HTTP 5xx, 408 or 429, or the
// agent's JSON-RPC internal error. A JSON-RPC error of the protocol (the
// agent refused the call), another HTTP status or a malformed answer is
// not.
func Transient(err error) bool {
	var rpc *Error
	var status *StatusError
	switch {
	case err == nil, errors.Is(err, ErrMalformed), errors.Is(err, context.Canceled), errors.Is(err, ErrNotPublic):
		return false
	case errors.As(err, &rpc):
		return rpc.Code == CodeInternal
	case errors.As(err, &status):
		return status.Code >= 500 || status.Code == http.StatusRequestTimeout || status.Code == http.StatusTooManyRequests
	}
	return true
}

// Client calls a remote agent's JSON-RPC interface (A2A 1.0), as the board
// does when it drives a remote agent (docs/a2a.md, "Remote agents").
type Client struct {
	// URL is the interface's URL, from the agent's card.
	URL string
	// Authorization, when set, is sent as the Authorization header.
	Authorization string
	// HTTP makes the requests; its transport decides which addresses may
	// be dialed.
	HTTP *http.Client
	ids  atomic.Int64
}

// FetchCard reads the agent card at cardURL.
func FetchCard(ctx context.Context, hc *http.Client, cardURL, authorization string) (*AgentCard, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, err
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	var card AgentCard
	if err := json.Unmarshal(body, &card); err != nil {
		return nil, fmt.Errorf("the agent card is not one (%w): %v", ErrMalformed, err)
	}
	return &card, nil
}

// JSONRPCURL is the card's JSON-RPC interface of protocol version 1.0.
func (c *AgentCard) JSONRPCURL() (string, bool) {
	for _, i := range c.SupportedInterfaces {
		if i.ProtocolBinding == "JSONRPC" && (i.ProtocolVersion == Version || strings.HasPrefix(i.ProtocolVersion, Version+".")) {
			return i.URL, true
		}
	}
	return "", false
}

// SendMessage sends msg and returns the task (or message) the agent
// answers with.
func (c *Client) SendMessage(ctx context.Context, req SendMessageRequest) (*SendMessageResponse, error) {
	var out SendMessageResponse
	return &out, c.call(ctx, MethodSendMessage, req, &out)
}

// GetTask reads a task.
func (c *Client) GetTask(ctx context.Context, id string) (*Task, error) {
	var out Task
	return &out, c.call(ctx, MethodGetTask, TaskRequest{ID: id}, &out)
}

// CancelTask asks the agent to cancel a task.
func (c *Client) CancelTask(ctx context.Context, id string) (*Task, error) {
	var out Task
	return &out, c.call(ctx, MethodCancelTask, TaskRequest{ID: id}, &out)
}

// SubscribeToTask follows a task: each event is handed to each until it
// returns false, the stream ends, or ctx ends.
func (c *Client) SubscribeToTask(ctx context.Context, id string, each func(StreamResponse) bool) error {
	resp, err := c.post(ctx, MethodSubscribeToTask, TaskRequest{ID: id}, "text/event-stream")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return c.decode(resp, nil)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxAnswer)
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "data:"); ok {
			data.WriteString(strings.TrimPrefix(rest, " "))
			continue
		}
		if line != "" || data.Len() == 0 {
			continue
		}
		var r struct {
			Result *StreamResponse `json:"result"`
			Error  *Error          `json:"error"`
		}
		err := json.Unmarshal([]byte(data.String()), &r)
		data.Reset()
		switch {
		case err != nil:
			return fmt.Errorf("a stream event is not a JSON-RPC response (%w): %v", ErrMalformed, err)
		case r.Error != nil:
			return r.Error
		case r.Result != nil && !each(*r.Result):
			return nil
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return err
	}
	return ctx.Err()
}

func (c *Client) call(ctx context.Context, method string, params, out any) error {
	resp, err := c.post(ctx, method, params, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return c.decode(resp, out)
}

func (c *Client) post(ctx context.Context, method string, params any, accept string) (*http.Response, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id, _ := json.Marshal(c.ids.Add(1))
	body, err := json.Marshal(Request{JSONRPC: "2.0", ID: id, Method: method, Params: p})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("A2A-Version", Version)
	if c.Authorization != "" {
		req.Header.Set("Authorization", c.Authorization)
	}
	return c.HTTP.Do(req)
}

// decode reads a JSON-RPC response into out: its error as an *Error, a
// status other than 200 without one as a plain error.
func (c *Client) decode(resp *http.Response, out any) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	err = json.Unmarshal(body, &r)
	switch {
	case err == nil && r.Error != nil:
		return r.Error
	case resp.StatusCode != http.StatusOK:
		return &StatusError{Code: resp.StatusCode, Status: resp.Status}
	case err != nil:
		return fmt.Errorf("the agent answered %s, not JSON-RPC (%w)", resp.Status, ErrMalformed)
	case out == nil:
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("the agent's result does not decode (%w): %v", ErrMalformed, err)
	}
	return nil
}
