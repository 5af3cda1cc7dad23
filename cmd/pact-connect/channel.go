package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// channelServer is the name of the pact-channel MCP server in .mcp.json;
// claude --dangerously-load-development-channels server:<name> loads it
// (docs/hooks.md).
const channelServer = "pact-channel"

// stdioServer is Claude Code's entry for an MCP server it starts itself.
type stdioServer struct {
	Command string            `json:"command"`
	Env     map[string]string `json:"env"`
}

// channelWrite adds the pact-channel server to the .mcp.json write w. It
// names only the agent: pact-channel reads the URL and the token from the
// hooks env file, so the token is in .mcp.json once, in the pact entry.
func channelWrite(w write, c *connected) (write, error) {
	entry := stdioServer{Command: "pact-channel", Env: map[string]string{"PACT_AGENT_ID": c.AgentID}}
	data, _, err := mergeServer(w.data, channelServer, "", entry, false)
	if err != nil {
		return write{}, fmt.Errorf("%s: %v; nothing was written and this code is used: rename or remove that server, "+
			"then connect with a new code", w.path, err)
	}
	w.data = data
	w.what += fmt.Sprintf(" and MCP server %q", channelServer)
	w.show = append(w.show, fmt.Sprintf("mcpServers.%s = %s", channelServer, mustJSON(entry)))
	return w, nil
}

// rewakeTimeout is the rewake hook's timeout in seconds: a day, since it
// waits for the next event as long as the session is idle.
const rewakeTimeout = 86400

// hookScriptPath is where the hooks' script is: $HOME/.config/pact, as
// docs/hooks.md installs it, or $PACT_HOOK_DIR.
func hookScriptPath(hookDir string) string {
	if hookDir == "" {
		return "$HOME/.config/pact/pact-hook.sh"
	}
	return shellQuote(filepath.Join(hookDir, "pact-hook.sh"))
}

// rewakeWrite merges the rewake hook into Claude Code's
// .claude/settings.local.json at path: an async Stop hook whose exit
// code 2 wakes the session (docs/hooks.md, "The rewake hook"). Every
// other setting and hook is kept; a rewake hook of this agent already
// there is replaced.
func rewakeWrite(path string, c *connected, hookDir string) (write, error) {
	old, err := readExisting(path)
	if err != nil {
		return write{}, err
	}
	command := hookScriptPath(hookDir) + " " + c.AgentID + " rewake"
	if hookDir != "" {
		command = "PACT_HOOK_DIR=" + shellQuote(hookDir) + " " + command
	}
	type hook struct {
		Type        string `json:"type"`
		Command     string `json:"command"`
		Async       bool   `json:"async"`
		AsyncRewake bool   `json:"asyncRewake"`
		Timeout     int    `json:"timeout"`
	}
	entry := map[string]any{"hooks": []hook{{Type: "command", Command: command, Async: true, AsyncRewake: true, Timeout: rewakeTimeout}}}
	fail := func(err error) (write, error) {
		return write{}, fmt.Errorf("%s: %v; nothing was written and this code is used: fix the file, then connect with a new code", path, err)
	}
	top, err := parseObject(old)
	if err != nil {
		return fail(err)
	}
	hooks := object{}
	if v, ok := top.get("hooks"); ok && string(v) != "null" {
		if hooks, err = parseObject(v); err != nil {
			return fail(fmt.Errorf("its hooks is not a JSON object"))
		}
	}
	var stop []json.RawMessage
	if v, ok := hooks.get("Stop"); ok && string(v) != "null" {
		if err := json.Unmarshal(v, &stop); err != nil {
			return fail(fmt.Errorf("its hooks.Stop is not a JSON array"))
		}
	}
	kept := make([]json.RawMessage, 0, len(stop)+1)
	for _, s := range stop {
		if !strings.Contains(string(s), " "+c.AgentID+" rewake") {
			kept = append(kept, s)
		}
	}
	kept = append(kept, mustJSON(entry))
	hooks = hooks.set("Stop", mustJSON(kept))
	top = top.set("hooks", hooks.encode(""))
	w := write{path: path, data: append(top.encode(""), '\n'), what: "Claude Code's rewake hook", kept: -1,
		show: []string{"hooks.Stop += " + string(mustJSON(entry))}}
	if old != nil {
		w.kept = len(top) - 1 + len(hooks) - 1 + len(kept) - 1
	}
	return w, nil
}
