package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// write is one file pact-connect writes, whole, mode 0600 (or the file's
// own stricter mode).
type write struct {
	path string
	data []byte
	what string   // what it holds, for the summary
	show []string // what is set in it, secrets masked, for --dry-run
	kept int      // members or lines of the existing file it keeps; -1: a new file
}

// secretSetting is a role setting the board keeps sealed
// (docs/security.md, "6. Runner secrets"); --dry-run masks it.
var secretSetting = regexp.MustCompile(`^(DATABASE_URL|([A-Z0-9]+_)*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIALS?))$`)

// claudeServer is Claude Code's entry for a remote MCP server.
type claudeServer struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// geminiServer is Gemini CLI's entry for a streamable HTTP MCP server.
type geminiServer struct {
	HTTPURL string            `json:"httpUrl"`
	Headers map[string]string `json:"headers"`
}

// antigravityServer is Antigravity's entry for a remote MCP server
// (docs/pact-connect.md): the address is serverUrl.
type antigravityServer struct {
	ServerURL string            `json:"serverUrl"`
	Headers   map[string]string `json:"headers"`
}

// mask shows a token as pact_… and its last 4 characters.
func mask(token string) string {
	if len(token) < len(tokenPrefix)+8 {
		return tokenPrefix + "…"
	}
	return tokenPrefix + "…" + token[len(token)-4:]
}

// plan is every file pact-connect writes for c, merged with what is there,
// or the reason it writes none.
func plan(c *connected, base string, o options, e env) ([]write, error) {
	hooks := e.HookDir
	if hooks == "" {
		hooks = filepath.Join(e.Home, ".config", "pact")
	}
	envPath := filepath.Join(hooks, c.AgentID+".env")
	mcpURL := base + "/mcp/a/" + c.AgentID
	headers := map[string]string{"Authorization": "Bearer " + c.Token}
	switch c.Client {
	case "code":
		entry := claudeServer{Type: "http", URL: mcpURL, Headers: headers}
		mcp, err := serverWrite(filepath.Join(o.dir, ".mcp.json"), o, mcpURL, entry, c)
		if err != nil {
			return nil, err
		}
		env, err := envWrite(envPath, "hooks env file", c, []setting{{"PACT_URL", base}, {"PACT_TOKEN", c.Token}},
			"\n# PACT_AUTO_CLAIM=1\n# PACT_AUTO_CLAIM_FROM=<agent ids, comma-separated>")
		if err != nil {
			return nil, err
		}
		if o.channel {
			if mcp, err = channelWrite(mcp, c); err != nil {
				return nil, err
			}
		}
		writes := []write{mcp, env}
		if o.rewake {
			w, err := rewakeWrite(filepath.Join(o.dir, ".claude", "settings.local.json"), c, e.HookDir)
			if err != nil {
				return nil, err
			}
			writes = append(writes, w)
		}
		return writes, nil
	}
	if o.channel || o.rewake {
		return nil, fmt.Errorf("agent %s is a %s agent: --channel and --rewake are for Claude Code agents; nothing was written",
			c.AgentID, c.Client)
	}
	switch c.Client {
	case "gemini":
		return geminiWrites(c, o, e, mcpURL, headers)
	case "runner":
		return runnerWrites(c, base, o, e, hooks)
	case "a2a-remote":
		return nil, fmt.Errorf("agent %s is a remote A2A agent: the board drives it, so nothing runs on this machine; "+
			"name its card in the console (its Manage, Remote card) or with PUT /admin/api/agents/%s/a2a-remote (docs/a2a.md); nothing was written", c.AgentID, c.AgentID)
	case "a2a":
		// An A2A client takes the agent's URL and token (docs/a2a.md):
		// they go to an env file, not into any client's own settings.
		env, err := envWrite(envPath, "A2A env file", c, []setting{{"PACT_A2A_URL", base + "/a2a/a/" + c.AgentID},
			{"PACT_A2A_CARD_URL", base + "/a2a/a/" + c.AgentID + "/.well-known/agent-card.json"},
			{"PACT_TOKEN", c.Token}, {"PACT_AGENT_ID", c.AgentID}}, "")
		if err != nil {
			return nil, err
		}
		return []write{env}, nil
	}
	return nil, fmt.Errorf("agent %s is a %s agent: it connects in its Claude app with %s, not with pact-connect; "+
		"nothing was written", c.AgentID, c.Client, mcpURL)
}

// geminiWrites are a Gemini agent's entries: Gemini CLI's settings.json,
// Antigravity's mcp_config.json where the original wrote it
// (~/.gemini/config), and the IDE's current one (~/.gemini/antigravity)
// when that directory exists, as the IDE makes it on its first start.
func geminiWrites(c *connected, o options, e env, mcpURL string, headers map[string]string) ([]write, error) {
	type target struct {
		path  string
		entry any
	}
	gemini := filepath.Join(e.Home, ".gemini")
	antigravity := antigravityServer{ServerURL: mcpURL, Headers: headers}
	targets := []target{
		{filepath.Join(gemini, "settings.json"), geminiServer{HTTPURL: mcpURL, Headers: headers}},
		{filepath.Join(gemini, "config", "mcp_config.json"), antigravity},
	}
	if st, err := os.Stat(filepath.Join(gemini, "antigravity")); err == nil && st.IsDir() {
		targets = append(targets, target{filepath.Join(gemini, "antigravity", "mcp_config.json"), antigravity})
	}
	out := make([]write, 0, len(targets))
	for _, t := range targets {
		w, err := serverWrite(t.path, o, mcpURL, t.entry, c)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// serverWrite merges the MCP server entry into the JSON file at path.
func serverWrite(path string, o options, url string, entry any, c *connected) (write, error) {
	old, err := readExisting(path)
	if err != nil {
		return write{}, err
	}
	data, kept, err := mergeServer(old, o.name, url, entry, o.force)
	var cf *conflict
	if errors.As(err, &cf) {
		return write{}, fmt.Errorf("%s: %v; nothing was written and this code is used: get a new one "+
			"(POST /admin/api/agents/%s/setup-code) and run again with --force to replace it, or with --name to keep both",
			path, err, c.AgentID)
	}
	if err != nil {
		return write{}, fmt.Errorf("%s: %v; nothing was written and this code is used: fix the file, then connect with a new code", path, err)
	}
	if old == nil {
		kept = -1
	}
	shown := strings.ReplaceAll(string(mustJSON(entry)), c.Token, mask(c.Token))
	return write{path: path, data: data, what: fmt.Sprintf("MCP server %q", o.name), kept: kept,
		show: []string{fmt.Sprintf("mcpServers.%s = %s", o.name, shown)}}, nil
}

// envWrite merges vars into the env file at path.
func envWrite(path, what string, c *connected, vars []setting, extra string) (write, error) {
	old, err := readExisting(path)
	if err != nil {
		return write{}, err
	}
	header := "# Written by pact-connect for agent " + c.AgentID + ". It holds the agent's token:\n" +
		"# keep it mode 600, outside any repository." + extra
	w := write{path: path, data: []byte(mergeEnv(string(old), vars, header)), what: what, kept: -1}
	if old != nil {
		w.kept = len(logicalLines(string(old)))
	}
	for _, s := range vars {
		v := shellQuote(s.value)
		switch {
		case s.value == c.Token:
			v = mask(c.Token)
		case secretSetting.MatchString(s.key):
			v = "[REDACTED]"
		}
		w.show = append(w.show, s.key+"="+v)
	}
	return w, nil
}

// runnerWrites are a Runner's env file and, when its role has
// instructions, the role file PACT_RUNNER_ROLE_FILE names.
func runnerWrites(c *connected, base string, o options, e env, dir string) ([]write, error) {
	// The keys pact-runner reads (docs/runner.md): one copy of the token.
	vars := []setting{{"PACT_URL", base}, {"PACT_TOKEN", c.Token}, {"PACT_AGENT_ID", c.AgentID},
		{"PACT_RUNNER_PROJECT", c.Project}}
	if o.repo != "" {
		vars = append(vars, setting{"PACT_RUNNER_REPO", o.repo})
	}
	var out []write
	if strings.TrimSpace(c.Instructions) != "" {
		role := filepath.Join(dir, c.AgentID+"-role.md")
		vars = append(vars, setting{"PACT_RUNNER_ROLE_FILE", role})
		text := strings.TrimRight(c.Instructions, "\n") + "\n"
		out = append(out, write{path: role, data: []byte(text), what: "role instructions", kept: -1,
			show: []string{fmt.Sprintf("(%d bytes of the role's instructions)", len(text))}})
	}
	fixed := map[string]bool{}
	for _, s := range vars {
		fixed[s.key] = true
	}
	keys := make([]string, 0, len(c.Settings))
	for k := range c.Settings {
		if !fixed[k] { // the connection's own values win over the role's
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		vars = append(vars, setting{k, c.Settings[k]})
	}
	envFile := filepath.Join(dir, c.AgentID+".env")
	env, err := envWrite(envFile, "runner env file", c, vars, "")
	if err != nil {
		return nil, err
	}
	out = append([]write{env}, out...)
	if e.GOOS == "darwin" {
		agent, missing := launchAgentWrite(c, o, e, envFile)
		if len(missing) > 0 {
			agent.show = append(agent.show, fmt.Sprintf("not found on PATH, so not on the agent's: %s", strings.Join(missing, ", ")))
		}
		out = append(out, agent)
	}
	return out, nil
}

// readExisting reads the file at path; nil when there is none.
func readExisting(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s (%v); nothing was written and this code is used: fix it, then connect with a new code", path, err)
	}
	if raw == nil {
		raw = []byte{}
	}
	return raw, nil
}
