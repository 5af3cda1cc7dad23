package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

const (
	codePrefix  = "pcs_"
	tokenPrefix = "pact_"
	// refusedCode is the one line for every code the board refuses.
	refusedCode = "this setup code is unknown, used or expired; ask for a new one in the Admin API " +
		"(POST /admin/api/agents/hire, or POST /admin/api/agents/<id>/setup-code for an agent already hired) or the console"
)

var (
	agentID    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	tokenRe    = regexp.MustCompile(`^pact_[A-Za-z0-9_-]{16,200}$`)
	settingKey = regexp.MustCompile(`^(PACT_RUNNER_[A-Z0-9_]+|DATABASE_URL)$`)
	serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
)

// connected is the board's answer to POST /connect (docs/specs/behavior.md §10.3).
type connected struct {
	AgentID      string            `json:"agent_id"`
	Client       string            `json:"client"`
	Project      string            `json:"project"`
	BoardURL     string            `json:"board_url"`
	MCPURL       string            `json:"mcp_url"`
	Token        string            `json:"token"`
	Role         *string           `json:"role"`
	Settings     map[string]string `json:"settings"`
	Instructions string            `json:"instructions"`
}

// boardBase checks the board URL and returns it without a trailing slash.
// Plain http is for a board on this machine unless insecure: the answer
// carries the token.
func boardBase(raw string, insecure bool) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("the board URL %q is not an http(s) URL such as https://board.example.com", raw)
	}
	if u.Scheme == "http" && !insecure && !loopback(u.Hostname()) {
		return "", fmt.Errorf("the board URL %s is plain http to another machine, which would carry the token in clear; use https, or --insecure", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redeem posts the code to <base>/connect, once, and checks the answer.
func redeem(ctx context.Context, base, code string) (*connected, error) {
	body, _ := json.Marshal(map[string]string{"code": code})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/connect", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // the code goes to the URL given, nowhere else
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the board at %s (%s); check the URL and that the board is running", base, reason(err))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusForbidden:
		return nil, errors.New(refusedCode)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return nil, fmt.Errorf("the board at %s redirects to %s; run pact-connect with the board's own URL", base, resp.Header.Get("Location"))
	case resp.StatusCode != http.StatusOK:
		var e struct{ Message string }
		if json.Unmarshal(raw, &e) != nil || e.Message == "" {
			return nil, fmt.Errorf("%s/connect answered %s, not a board's answer; check the board URL", base, resp.Status)
		}
		return nil, fmt.Errorf("the board at %s refused the code (%s): %s", base, resp.Status, e.Message)
	}
	var c connected
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s/connect answered something that is not a board's answer; check the board URL", base)
	}
	return &c, check(&c)
}

// check refuses an answer pact-connect could not write safely: the agent
// id names files, the settings become shell variables.
func check(c *connected) error {
	switch {
	case !agentID.MatchString(c.AgentID):
		return fmt.Errorf("the board answered an agent id %q pact-connect cannot use in a file name", c.AgentID)
	case !tokenRe.MatchString(c.Token):
		return errors.New("the board's answer holds no agent token")
	}
	for k := range c.Settings {
		if !settingKey.MatchString(k) {
			return fmt.Errorf("the role's setting %q is not PACT_RUNNER_<NAME> or DATABASE_URL", k)
		}
	}
	return nil
}

// reason is the short cause of a failed request.
func reason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
