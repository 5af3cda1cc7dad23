package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pactboard/pact/core/envfile"
)

// config is what pact-channel needs: the board, the agent and its token,
// and the pacts to follow (none: every pact the agent sits in).
type config struct {
	URL, Token, Agent string
	Pacts             []string
}

// loadConfig reads PACT_URL, PACT_TOKEN and PACT_AGENT_ID from the
// environment, and whichever of them is missing from the env file
// pact-connect writes: PACT_ENV_FILE, else <dir>/<PACT_AGENT_ID>.env in
// ${PACT_HOOK_DIR:-$HOME/.config/pact}, else the one *.env file there (the
// agent is its base name). The token is never read from the command line.
// Its error is one line saying what to set.
func loadConfig(getenv func(string) string) (*config, error) {
	c := &config{URL: getenv("PACT_URL"), Token: getenv("PACT_TOKEN"), Agent: getenv("PACT_AGENT_ID")}
	for p := range strings.SplitSeq(getenv("PACT_PACTS"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.Pacts = append(c.Pacts, p)
		}
	}
	if c.URL == "" || c.Token == "" || c.Agent == "" {
		path, agent, err := envFile(getenv, c.Agent)
		if err != nil {
			return nil, err
		}
		vars, err := envfile.Read(path)
		if err != nil {
			return nil, fmt.Errorf("read the env file: %w", err)
		}
		fill := func(v *string, from string) {
			if *v == "" {
				*v = from
			}
		}
		fill(&c.URL, vars["PACT_URL"])
		fill(&c.Token, vars["PACT_TOKEN"])
		fill(&c.Agent, vars["PACT_AGENT_ID"])
		fill(&c.Agent, agent)
		var missing []string
		for _, m := range []struct{ name, v string }{{"PACT_URL", c.URL}, {"PACT_TOKEN", c.Token}, {"PACT_AGENT_ID", c.Agent}} {
			if m.v == "" {
				missing = append(missing, m.name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s sets no %s: set it in the environment or in that file (pact-connect writes it)",
				path, strings.Join(missing, ", "))
		}
	}
	c.URL = strings.TrimRight(c.URL, "/")
	if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
		return nil, fmt.Errorf("PACT_URL must be the board's http(s):// address, not %q", c.URL)
	}
	return c, nil
}

// envFile finds the env file to read, and the agent its name gives.
func envFile(getenv func(string) string, agent string) (path, named string, err error) {
	const what = "set PACT_URL, PACT_TOKEN and PACT_AGENT_ID, or PACT_ENV_FILE to the env file pact-connect wrote"
	if p := getenv("PACT_ENV_FILE"); p != "" {
		return p, strings.TrimSuffix(filepath.Base(p), ".env"), nil
	}
	dir := getenv("PACT_HOOK_DIR")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return "", "", errors.New("no PACT_TOKEN and no HOME to find an env file in: " + what)
		}
		dir = filepath.Join(home, ".config", "pact")
	}
	if agent != "" {
		p := filepath.Join(dir, agent+".env")
		if _, err := os.Stat(p); err != nil {
			return "", "", fmt.Errorf("no %s: %s", p, what)
		}
		return p, agent, nil
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*.env"))
	if len(found) != 1 {
		return "", "", fmt.Errorf("PACT_AGENT_ID is not set and %s holds %d *.env files, not one: %s", dir, len(found), what)
	}
	return found[0], strings.TrimSuffix(filepath.Base(found[0]), ".env"), nil
}
