package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

// The demo board `make run` sets up on first start.
const (
	demoOwner   = "owner"
	demoProject = "demo"
	demoAgent   = "code-demo"
)

// firstRun creates, only when they are absent, an owner, a project and a
// code agent, and tells the person at the terminal how to connect the agent.
// The agent's token is printed only when the agent is created: the board
// keeps no copy of it.
func firstRun(ctx context.Context, d *db.DB, ident *identity.Service, agents *people.Service, publicURL string, out io.Writer) error {
	owner, err := firstOwner(ctx, d)
	if err != nil {
		return err
	}
	if owner == "" {
		if _, err := ident.AddHuman(ctx, "", identity.HumanInput{ID: demoOwner, Name: "Board owner", Role: identity.Owner}); err != nil {
			return fmt.Errorf("create the first owner: %w", err)
		}
		owner = demoOwner
	}
	if _, err := ident.AddProject(ctx, owner, demoProject, "Demo project", false); err != nil && errs.CodeOf(err) != errs.IDTaken {
		return fmt.Errorf("create project %s: %w", demoProject, err)
	}
	url := publicURL + "/mcp/a/" + demoAgent
	reg, err := agents.RegisterAgent(ctx, owner, people.AgentInput{ID: demoAgent, Client: "code", Projects: []string{demoProject}})
	switch {
	case errs.CodeOf(err) == errs.IDTaken:
		fmt.Fprintf(out, "\nAgent %s: %s\nIts token was printed when it was created. For a new one:\n"+
			"  ./bin/pact-admin token-issue %s --by %s\n\n", demoAgent, url, demoAgent, owner)
		return nil
	case err != nil:
		return fmt.Errorf("register agent %s: %w", demoAgent, err)
	}
	snippet, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"pact": map[string]any{
		"type": "http", "url": url, "headers": map[string]string{"Authorization": "Bearer " + reg.Token},
	}}}, "", "  ")
	fmt.Fprintf(out, "\nPACT Board is set up: owner %q, project %q, agent %q.\n\n"+
		"Agent MCP URL: %s\nAgent token (shown once; the board keeps only its hash): %s\n\n"+
		"For Claude Code, put this in .mcp.json:\n%s\n\n", owner, demoProject, demoAgent, url, reg.Token, snippet)
	return nil
}

// firstOwner returns the oldest active owner of the default organization, or
// "" when the board has nobody yet.
func firstOwner(ctx context.Context, d *db.DB) (string, error) {
	return identity.FirstOwner(ctx, d, "default")
}
