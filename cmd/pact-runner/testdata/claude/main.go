// Command claude is a stand-in for Claude Code in print mode, built by
// pact-runner's tests: it takes the flags the runner passes (and refuses
// any other, as the real CLI does), reads the task on stdin and the MCP
// config, connects to the board with a real MCP client, lists its tools,
// makes the calls STANDIN_CALLS asks for (a JSON list of {"tool","args"}),
// and prints the JSON result print mode prints. What it saw is written to
// STANDIN_RECORD for the test to read.
//
// STANDIN_SLEEP (seconds) makes it wait before answering, STANDIN_TURNS and
// STANDIN_COST set num_turns and total_cost_usd, STANDIN_ERROR=1 sets
// is_error. With --json-schema it answers a brief whose items are the
// tasks its pact_list call returned.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type record struct {
	Args      []string          `json:"args"`
	Prompt    string            `json:"prompt"`
	Cwd       string            `json:"cwd"`
	Config    json.RawMessage   `json:"config"`
	Token     string            `json:"token"`
	Tools     []string          `json:"tools"`
	Calls     []call            `json:"calls"`
	Role      string            `json:"role"`
	Flags     map[string]string `json:"flags"`
	Connected bool              `json:"connected"`
	Error     string            `json:"error,omitempty"`
	Sleeping  bool              `json:"sleeping,omitempty"`
}

type call struct {
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
	IsError bool           `json:"is_error"`
	Text    string         `json:"text"`
}

type bearer struct{ header string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.header)
	return http.DefaultTransport.RoundTrip(r)
}

func main() {
	fs := flag.NewFlagSet("claude", flag.ContinueOnError)
	printMode := fs.Bool("p", false, "print mode")
	mcpConfig := fs.String("mcp-config", "", "")
	_ = fs.Bool("strict-mcp-config", false, "")
	allowed := fs.String("allowedTools", "", "")
	maxTurns := fs.Int("max-turns", 0, "")
	settings := fs.String("settings", "", "")
	format := fs.String("output-format", "text", "")
	roleFile := fs.String("append-system-prompt-file", "", "")
	budget := fs.String("max-budget-usd", "", "")
	schema := fs.String("json-schema", "", "")
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error: unknown option")
		os.Exit(1)
	}
	rec := record{Args: os.Args[1:], Flags: map[string]string{"allowedTools": *allowed, "max-turns": strconv.Itoa(*maxTurns),
		"settings": *settings, "output-format": *format, "max-budget-usd": *budget, "json-schema": *schema}}
	rec.Cwd, _ = os.Getwd()
	prompt, _ := io.ReadAll(os.Stdin)
	rec.Prompt = string(prompt)
	if *roleFile != "" {
		b, _ := os.ReadFile(*roleFile)
		rec.Role = string(b)
	}
	save := func() {
		if p := os.Getenv("STANDIN_RECORD"); p != "" {
			raw, _ := json.MarshalIndent(rec, "", "  ")
			_ = os.WriteFile(p+".tmp", raw, 0o600)
			_ = os.Rename(p+".tmp", p)
		}
	}
	defer save()
	if !*printMode || *format != "json" {
		fmt.Println("the stand-in answers only -p --output-format json")
		return
	}
	var cfg struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	raw, err := os.ReadFile(*mcpConfig)
	if err != nil || json.Unmarshal(raw, &cfg) != nil {
		fail(&rec, "cannot read the MCP config")
		return
	}
	rec.Config = raw
	server := cfg.MCPServers["pact"]
	rec.Token = server.Headers["Authorization"]
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "claude-stand-in", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: server.URL,
		HTTPClient: &http.Client{Transport: bearer{server.Headers["Authorization"]}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		fail(&rec, "cannot connect: "+err.Error())
		return
	}
	defer cs.Close()
	rec.Connected = true
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			fail(&rec, err.Error())
			return
		}
		rec.Tools = append(rec.Tools, t.Name)
	}
	var calls []call
	_ = json.Unmarshal([]byte(os.Getenv("STANDIN_CALLS")), &calls)
	var listed []map[string]any
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		if err != nil {
			c.IsError, c.Text = true, err.Error()
		} else {
			c.IsError, c.Text = res.IsError, res.Content[0].(*mcp.TextContent).Text
		}
		if c.Tool == "pact_list" && !c.IsError {
			var out struct {
				Tasks []map[string]any `json:"tasks"`
			}
			_ = json.Unmarshal([]byte(c.Text), &out)
			listed = append(listed, out.Tasks...)
		}
		rec.Calls = append(rec.Calls, c)
	}
	if s, _ := strconv.ParseFloat(os.Getenv("STANDIN_SLEEP"), 64); s > 0 {
		rec.Sleeping = true
		save() // the test may wait for this
		time.Sleep(time.Duration(s * float64(time.Second)))
	}
	turns, _ := strconv.Atoi(os.Getenv("STANDIN_TURNS"))
	cost, _ := strconv.ParseFloat(os.Getenv("STANDIN_COST"), 64)
	out := map[string]any{"type": "result", "subtype": "success", "is_error": os.Getenv("STANDIN_ERROR") == "1",
		"num_turns": max(turns, 1), "total_cost_usd": cost,
		"result": "Done by the stand-in.\n\n## Handoff\n- Done: what the task asked.\n- Left / next: nothing."}
	if *schema != "" {
		var items []map[string]any
		for _, t := range listed {
			items = append(items, map[string]any{"text": fmt.Sprint(t["title"]), "task_id": t["id"]})
		}
		out["structured_output"] = map[string]any{"greeting": "Good morning from the stand-in",
			"sections": []any{map[string]any{"title": "What changed", "items": items}}}
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

func fail(rec *record, why string) {
	rec.Error = why
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"type": "result", "subtype": "error_during_execution",
		"is_error": true, "num_turns": 1, "result": why})
}
